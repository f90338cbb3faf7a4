import { afterCommit, currentUnit } from '../db/units.ts';
import type { IntakeScheduler } from '../intake/intake-jobs.ts';

/**
 * Jobs for files staged inside a unit of work are queued once it commits (before the response
 * goes out): a worker must not take a job whose record is not visible yet. Outside a unit, at once.
 */
export function afterCommitScheduler(s: IntakeScheduler): IntakeScheduler {
  const later = (fn: () => Promise<void>) => (currentUnit() ? (afterCommit(fn), Promise.resolve()) : fn());
  return {
    enqueue: (ref) => later(() => s.enqueue(ref)),
    enqueueMany: s.enqueueMany && ((refs) => later(() => s.enqueueMany!(refs))),
    restore: (ref, state) => later(() => s.restore(ref, state)),
    cancel: (id) => later(() => s.cancel(id)),
    state: (id) => s.state(id),
    promote: (id) => s.promote(id),
  };
}
