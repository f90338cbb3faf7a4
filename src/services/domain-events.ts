import type { Invoice } from '../domain/models.ts';
import type { Scope } from '../domain/scope.ts';

/**
 * What the core tells the rest of the service about. Listeners run after the change is
 * committed; a failing listener is logged by the emitter's owner and never fails the request.
 */
export interface DomainEventMap {
  invoiceCreated: { scope: Scope; invoice: Invoice };
  keyRotated: { scope: Scope };
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
