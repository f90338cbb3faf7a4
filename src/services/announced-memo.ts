// What a node remembers of rarely changing data that every received file or change would
// otherwise ask the database for (which webhook events an account wants, whether an account is
// disabled), kept in a KeyCache. As with the API key cache, the node uses what it remembers only
// while it hears every node's announcements (queue/announcements.ts says so); a change is announced
// before it is made (Redis away: the change is refused) and again after, so that every node hears
// of it within 1 s.
import { whenCommitted } from '../db/units.ts';
import { KeyCache } from './key-cache.ts';

/** Tells every node (this one included) to forget what it remembers of a key. */
export type Announce = (key: string) => Promise<void>;

export class AnnouncedMemo<V> {
  private readonly store: KeyCache<V>;

  constructor(
    /** 0: nothing is remembered, every question is a query */
    ttlMs: number,
    /** whether this node hears every announcement (see Announcements.cacheTrusted) */
    private readonly trusted: () => boolean,
    private readonly announce: Announce,
    maxEntries?: number,
  ) {
    this.store = new KeyCache<V>(ttlMs, maxEntries);
  }

  /** The remembered value of `key`, or what `load` reads now (remembered if nothing was announced meanwhile). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.trusted()) return load();
    const hit = this.store.get(key);
    if (hit !== undefined) return hit;
    const since = this.store.generation;
    const value = await load();
    this.store.set(key, value, since);
    return value;
  }

  /** Runs a change of `key`'s data, announced before (throws, changing nothing, when Redis cannot carry it) and after. */
  async changing<T>(key: string, change: () => Promise<T>): Promise<T> {
    const announcing = this.store.ttlMs > 0;
    if (announcing) await this.announce(key);
    let changed = false;
    try {
      const result = await change();
      changed = true;
      return result;
    } finally {
      // a node that looked the key up in between; if this fails, Redis went away and every node stops
      // trusting within 1 s. Inside a unit of work (a change and its trail entry) once it commits.
      const after = async () => {
        this.forget(key);
        if (announcing) await this.announce(key).catch(() => {});
      };
      await (changed ? whenCommitted(after) : after());
    }
  }

  forget(key: string): void {
    this.store.forget(key);
  }

  clear(): void {
    this.store.clear();
  }
}
