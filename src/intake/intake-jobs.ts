// What the intake domain needs from the job queue, without knowing it is BullMQ.
import type { Mode } from '../domain/scope.ts';

/** A job's data: references only, never bytes or keys. */
export interface IntakeJobRef {
  intakeId: string;
  accountId: string;
  mode: Mode;
  /** the channel's correlation id (FTP session, IMAP message, HTTP request), for the worker's logs */
  traceId?: string;
}

export type IntakeJobState = 'waiting' | 'active' | 'delayed' | 'completed' | 'failed' | 'missing' | 'other';

export interface IntakeScheduler {
  /** Idempotent: the job id is the intake id, so a second enqueue of a live job is a no-op. */
  enqueue(ref: IntakeJobRef): Promise<void>;
  /** Several jobs in one round trip (a staging group); all or none. Without it, enqueue() each. */
  enqueueMany?(refs: IntakeJobRef[]): Promise<void>;
  state(intakeId: string): Promise<IntakeJobState>;
  /** Runs a delayed job now; false when it was not delayed (any more). */
  promote(intakeId: string): Promise<boolean>;
  /** Drops the file's job unless it is running (a running job finds the record discarded). */
  cancel(intakeId: string): Promise<void>;
  /** Makes a finished or vanished job run again (reconciler). */
  restore(ref: IntakeJobRef, state: IntakeJobState): Promise<void>;
}
