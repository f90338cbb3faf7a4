// What a node remembers of rarely changing data that every received file or change would
// otherwise ask the database for (which webhook events an account wants, whether an account is
// disabled). As with the key cache, the node uses what it remembers only while it hears every
// node's announcements (the request gate says so); a change is announced before it is made
// (Redis away: the change is refused) and again after, so that every node hears of it within 1 s.

/** Tells every node (this one included) to forget what it remembers of a key. */
export type Announce = (key: string) => Promise<void>;

export class AnnouncedMemo<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** changes on every forget/clear: a lookup that began before one stores nothing */
  private generation = 0;

  constructor(
    /** 0: nothing is remembered, every question is a query */
    private readonly ttlMs: number,
    /** whether this node hears every announcement (see RequestGate.cacheTrusted) */
    private readonly trusted: () => boolean,
    private readonly announce: Announce,
    private readonly maxEntries = 10_000,
  ) {}

  /** The remembered value of `key`, or what `load` reads now (remembered if nothing was announced meanwhile). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0 || !this.trusted()) return load();
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const since = this.generation;
    const value = await load();
    if (since === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    }
    return value;
  }

  /** Runs a change of `key`'s data, announced before (throws, changing nothing, when Redis cannot carry it) and after. */
  async changing<T>(key: string, change: () => Promise<T>): Promise<T> {
    if (this.ttlMs > 0) await this.announce(key);
    try {
      return await change();
    } finally {
      this.forget(key);
      // a node that looked the key up in between; if this fails, Redis went away and every node stops trusting within 1 s
      if (this.ttlMs > 0) await this.announce(key).catch(() => {});
    }
  }

  forget(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
