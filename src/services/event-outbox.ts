// The outbox: a webhook event is written in the transaction of the change it reports (a
// participant of the unit of work, db/units.ts), so the change and its event commit together or
// not at all; a dispatcher (webhooks/dispatcher.ts) queues the deliveries after the commit. Nothing is written when no enabled endpoint of the account
// and mode wants the event type; which types are wanted, WebhookSubscriptions remembers.
import type { UnitOfWork, UnitTransaction } from '../db/units.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { newId } from '../domain/ids.ts';
import type { Scope } from '../domain/scope.ts';
import type { EventPresenter, EventSubject } from '../domain/webhooks.ts';
import type { WebhookSubscriptions } from './webhook-subscriptions.ts';

/** The subject of an event, read inside the transaction only when someone wants the event. */
export type SubjectLoader = () => EventSubject | undefined | Promise<EventSubject | undefined>;

interface EventOutboxOptions {
  db: Database;
  /** whose transactions the events are written in */
  units: UnitOfWork;
  repos: Pick<Repositories, 'webhookEvents'>;
  present: EventPresenter;
  subscriptions: Pick<WebhookSubscriptions, 'wants'>;
  /** told after a commit that wrote events (the dispatcher queues them at once) */
  onCommitted?: () => void;
}

export class EventOutbox {
  private readonly db: Database;
  private readonly units: UnitOfWork;
  private readonly repos: Pick<Repositories, 'webhookEvents'>;
  private readonly present: EventPresenter;
  private readonly subscriptions: Pick<WebhookSubscriptions, 'wants'>;
  private readonly onCommitted: () => void;
  /** the transactions that wrote an event: the dispatcher is told once each commits */
  private readonly told = new WeakSet<UnitTransaction>();

  constructor(o: EventOutboxOptions) {
    ({ db: this.db, units: this.units, repos: this.repos, present: this.present, subscriptions: this.subscriptions } = o);
    this.onCommitted = o.onCommitted ?? (() => {});
  }

  /** Writes one event (the payload, fixed now: every retry sends the same bytes). */
  async write(q: Queryable, scope: Scope, type: string, subject: EventSubject, webhookId?: string): Promise<string> {
    const id = newId('evt');
    const body = JSON.stringify({ id, type, created: new Date().toISOString(), mode: scope.mode, data: this.present(subject) });
    await this.repos.webhookEvents.insert(q, scope, { id, type, body, webhookId });
    return id;
  }

  /**
   * Records an event in the unit of work's transaction `tx` when an enabled endpoint wants its
   * type (`load` reads its subject then, inside `tx`); the dispatcher hears of it once `tx` commits.
   */
  async record(tx: UnitTransaction, scope: Scope, type: string, load: SubjectLoader): Promise<void> {
    if (!(await this.subscriptions.wants(tx, scope, type))) return;
    const subject = await load();
    if (!subject) return;
    await this.write(tx, scope, type, subject);
    if (this.told.has(tx)) return;
    this.told.add(tx);
    tx.afterCommit(() => this.onCommitted());
  }

  /**
   * One change that reports one event. With no endpoint listening, the change runs on its own as
   * before; otherwise it runs in a transaction with its event. An endpoint created while the
   * change runs may miss it: it subscribed to what happens after its creation.
   */
  async change<T>(scope: Scope, type: string, run: (q: Queryable) => Promise<T>, subject: (q: Queryable, result: T) => SubjectLoader): Promise<T> {
    if (!(await this.subscriptions.wants(this.db, scope, type))) return run(this.db);
    return this.units.transaction(async (tx) => {
      const result = await run(tx);
      await this.record(tx, scope, type, subject(tx, result));
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
