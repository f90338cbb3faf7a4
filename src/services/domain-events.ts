import type { Invoice } from '../domain/models.ts';
import type { Scope } from '../domain/scope.ts';
import type { IntakeChannel, IntakeStatus } from '../intake/intake-port.ts';

/**
 * What the core tells the rest of the service about. Listeners run after the change is
 * committed; a failing listener is logged by the emitter's owner and never fails the request.
 */
export interface DomainEventMap {
  invoiceCreated: { scope: Scope; invoice: Invoice };
  keyRotated: { scope: Scope };
  /** an intake file entered a status (metrics, feedback); emitted in the process that moved it */
  intakeStatus: { scope: Scope; intakeId: string; channel: IntakeChannel; status: IntakeStatus; reason: string | null };
}

type Listener<K extends keyof DomainEventMap> = (e: DomainEventMap[K]) => void | Promise<void>;

export class DomainEvents {
  private listeners: { [K in keyof DomainEventMap]?: Listener<K>[] } = {};
  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  on<K extends keyof DomainEventMap>(name: K, fn: Listener<K>): void {
    (this.listeners[name] ??= [] as any).push(fn);
  }

  emit<K extends keyof DomainEventMap>(name: K, event: DomainEventMap[K]): void {
    for (const fn of this.listeners[name] ?? []) {
      Promise.resolve()
        .then(() => (fn as Listener<K>)(event))
        .catch(this.onListenerError);
    }
  }
}
