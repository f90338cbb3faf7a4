// The outbox: a webhook event is written in the transaction of the change it reports, so the
// change and its event commit together or not at all; a dispatcher (webhooks/dispatcher.ts)
// queues the deliveries afterwards. Nothing is written when no enabled endpoint of the account
// and mode wants the event type; which types are wanted, WebhookSubscriptions remembers.
import type { Database, Queryable } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { newId } from '../domain/ids.ts';
import type { Scope } from '../domain/scope.ts';
import type { EventPresenter, EventSubject } from '../domain/webhooks.ts';
import type { WebhookSubscriptions } from './webhook-subscriptions.ts';

/** The subject of an event, read inside the transaction only when someone wants the event. */
export type SubjectLoader = () => EventSubject | undefined | Promise<EventSubject | undefined>;

/** Records events inside the transaction it was handed. */
export type RecordEvent = (scope: Scope, type: string, subject: SubjectLoader) => Promise<void>;

export class EventOutbox {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'webhookEvents'>,
    private readonly present: EventPresenter,
    private readonly subscriptions: Pick<WebhookSubscriptions, 'wants'>,
    /** told after a commit that wrote events (the dispatcher queues them at once) */
    private readonly onCommitted: () => void = () => {},
  ) {}

  /** Writes one event (the payload, fixed now: every retry sends the same bytes). */
  async write(q: Queryable, scope: Scope, type: string, subject: EventSubject, webhookId?: string): Promise<string> {
    const id = newId('evt');
    const body = JSON.stringify({ id, type, created: new Date().toISOString(), mode: scope.mode, data: this.present(subject) });
    await this.repos.webhookEvents.insert(q, scope, { id, type, body, webhookId });
    return id;
  }

  private recorder(q: Queryable, wrote: { any: boolean }): RecordEvent {
    return async (scope, type, load) => {
      if (!(await this.subscriptions.wants(q, scope, type))) return;
      const subject = await load();
      if (!subject) return;
      await this.write(q, scope, type, subject);
      wrote.any = true;
    };
  }

  /** Runs fn in one transaction; the events it records commit or roll back with its changes. */
  async transaction<T>(fn: (tx: Queryable, record: RecordEvent) => Promise<T>): Promise<T> {
    const wrote = { any: false };
    const result = await this.db.transaction((tx) => fn(tx, this.recorder(tx, wrote)));
    if (wrote.any) this.onCommitted();
    return result;
  }

  /**
   * One change that reports one event. With no endpoint listening, the change runs on its own as
   * before; otherwise it runs in a transaction with its event. An endpoint created while the
   * change runs may miss it: it subscribed to what happens after its creation.
   */
  async change<T>(scope: Scope, type: string, run: (q: Queryable) => Promise<T>, subject: (q: Queryable, result: T) => SubjectLoader): Promise<T> {
    if (!(await this.subscriptions.wants(this.db, scope, type))) return run(this.db);
    return this.transaction(async (tx, record) => {
      const result = await run(tx);
      await record(scope, type, subject(tx, result));
      return result;
    });
  }

  /** Whether an enabled endpoint of the scope wants `type` (remembered per node: no query as a rule). */
  wants(scope: Scope, type: string): Promise<boolean> {
    return this.subscriptions.wants(this.db, scope, type);
  }

  /** Tells the dispatcher that events were committed outside transaction() (a ping). */
  committed(): void {
    this.onCommitted();
  }
}
