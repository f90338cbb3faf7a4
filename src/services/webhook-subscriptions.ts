// Which event types a scope's enabled webhook endpoints want, remembered so that a change (an
// invoice, each received file) does not pay a query to learn that nobody listens. As with the key
// cache, the node uses what it remembers only while it hears every node's announcements (the
// request gate says so); a change of endpoints is announced before it is made (Redis away: the
// change is refused) and again after, so that every node hears of it within 1 s.
import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import { webhookRepository as webhooks } from '../repositories/webhook-repository.ts';

/** Tells every node (this one included) to forget what it remembers of a scope. */
export type AnnounceScope = (scopeKey: string) => Promise<void>;

const keyOf = (scope: Scope) => `${scope.accountId}:${scope.mode}`;

export class WebhookSubscriptions {
  private readonly entries = new Map<string, { types: ReadonlySet<string>; expires: number }>();
  /** changes on every forget/clear: a lookup that began before one stores nothing */
  private generation = 0;

  constructor(
    /** 0: nothing is remembered, every question is a query */
    private readonly ttlMs: number,
    /** whether this node hears every announcement (see RequestGate.cacheTrusted) */
    private readonly trusted: () => boolean,
    private readonly announce: AnnounceScope,
    private readonly maxEntries = 10_000,
  ) {}

  /** Whether an enabled endpoint of the scope wants `type` (asked through `q`, inside its transaction if any). */
  async wants(q: Queryable, scope: Scope, type: string): Promise<boolean> {
    if (this.ttlMs <= 0 || !this.trusted()) return webhooks.anySubscribed(q, scope, type);
    const key = keyOf(scope);
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.types.has(type);
    const since = this.generation;
    const types = new Set(await webhooks.subscribedTypes(q, scope));
    if (since === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { types, expires: Date.now() + this.ttlMs });
    }
    return types.has(type);
  }

  /** Runs a change of the scope's endpoints, announced before (throws, changing nothing, when Redis cannot carry it) and after. */
  async changing<T>(scope: Scope, change: () => Promise<T>): Promise<T> {
    const key = keyOf(scope);
    if (this.ttlMs > 0) await this.announce(key);
    try {
      return await change();
    } finally {
      this.forget(key);
      // a node that looked the scope up in between; if this fails, Redis went away and every node stops trusting within 1 s
      if (this.ttlMs > 0) await this.announce(key).catch(() => {});
    }
  }

  forget(scopeKey: string): void {
    this.generation++;
    this.entries.delete(scopeKey);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
