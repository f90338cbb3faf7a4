import type { Invoice } from '../domain/models.ts';
import type { Scope } from '../domain/scope.ts';
import type { IntakeChannel, IntakeStatus } from '../domain/intake.ts';

/**
 * What the core tells the rest of the service about. Listeners run after the change is
 * committed; a failing listener is logged by the emitter's owner and never fails the request.
 */
export interface DomainEventMap {
  /** intake wakes the files waiting for its id or number */
  invoiceCreated: { scope: Scope; invoice: Invoice };
  /** an intake file entered a status (metrics, feedback); emitted in the process that moved it */
  intakeStatus: {
    scope: Scope;
    intakeId: string;
    channel: IntakeChannel;
    status: IntakeStatus;
    reason: string | null /** with `attached`: when it was received */;
    receivedAt?: Date;
  };
}

type Listener<K extends keyof DomainEventMap> = (e: DomainEventMap[K]) => void | Promise<void>;

export class DomainEvents {
  private listeners: { [K in keyof DomainEventMap]?: Listener<K>[] } = {};
  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  on<K extends keyof DomainEventMap>(name: K, fn: Listener<K>): void {
    // biome-ignore lint/suspicious/noExplicitAny: each event name has its own listener type
    (this.listeners[name] ??= [] as any).push(fn);
  }

  off<K extends keyof DomainEventMap>(name: K, fn: Listener<K>): void {
    const list = this.listeners[name] as Listener<K>[] | undefined;
    const i = list?.indexOf(fn) ?? -1;
    if (i >= 0) list!.splice(i, 1);
  }

  emit<K extends keyof DomainEventMap>(name: K, event: DomainEventMap[K]): void {
    for (const fn of this.listeners[name] ?? []) {
      Promise.resolve()
        .then(() => (fn as Listener<K>)(event))
        .catch(this.onListenerError);
    }
  }
}
