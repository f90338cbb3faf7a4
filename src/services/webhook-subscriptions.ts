// Which event types a scope's enabled webhook endpoints want, remembered per node (announced-memo.ts)
// so that a change (an invoice, each received file) does not pay a query to learn that nobody listens.
import type { Queryable } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { Scope } from '../domain/scope.ts';
import type { AnnouncedMemo } from './announced-memo.ts';

const keyOf = (scope: Scope) => `${scope.accountId}:${scope.mode}`;

export class WebhookSubscriptions {
  constructor(
    private readonly repos: Pick<Repositories, 'webhooks'>,
    private readonly memo: AnnouncedMemo<ReadonlySet<string>>,
  ) {}

  /** Whether an enabled endpoint of the scope wants `type` (asked through `q`, inside its transaction if any). */
  async wants(q: Queryable, scope: Scope, type: string): Promise<boolean> {
    return (await this.memo.get(keyOf(scope), async () => new Set(await this.repos.webhooks.subscribedTypes(q, scope)))).has(type);
  }

  /** Runs a change of the scope's endpoints so that every node hears of it (AnnouncedMemo.changing). */
  changing<T>(scope: Scope, change: () => Promise<T>): Promise<T> {
    return this.memo.changing(keyOf(scope), change);
  }
}
