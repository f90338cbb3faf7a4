// An import record's status change and its `import.<status>` webhook event, committed together
// (the outbox writes the event only when an endpoint of the scope wants that type, and only when
// the change applied: a `run` that resolves to false changed nothing, and reports nothing).
import type { Queryable } from '../db/database.ts';
import type { IntakeStatus } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import type { IntakeRepository } from './intake-repository.ts';

export function changeIntakeStatus<T>(
  outbox: EventOutbox,
  repo: Pick<IntakeRepository, 'find'>,
  scope: Scope,
  id: string,
  status: IntakeStatus,
  run: (q: Queryable) => Promise<T>,
): Promise<T> {
  return outbox.change(scope, `import.${status}`, run, (q, applied) => async () => {
    if (applied === false) return undefined;
    const record = (await repo.find(q, scope, id))?.record;
    return record && { resource: 'import', record };
  });
}
