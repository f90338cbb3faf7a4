// The order a process stops in, made explicit: first whatever takes work in (API, FTP, mail) so
// nothing new arrives; then the workers, which finish their in-flight jobs (or, at the deadline,
// leave them to BullMQ's stalled-job check, which hands them to another worker); then the queues.
// The container closes Redis and the database after the last phase.
import type { Logger } from '../platform/logger.ts';
import { settledBefore } from '../platform/timeouts.ts';

const STOP_PHASES = ['intake', 'workers', 'queues'] as const;
export type StopPhase = (typeof STOP_PHASES)[number];

/** Stops one part; `deadline` (epoch ms) is when the grace period ends: after it, cut short. */
export type Stopper = (deadline: number) => Promise<void> | void;

export class StopSequence {
  private readonly steps = new Map<StopPhase, { name: string; fn: Stopper }[]>(STOP_PHASES.map((p) => [p, []]));
  private ran = false;

  add(phase: StopPhase, name: string, fn: Stopper): void {
    this.steps.get(phase)!.push({ name, fn });
  }

  /**
   * The parts of each phase stop together; a part that throws is logged and the rest go on. A part
   * still stopping at the deadline is left behind (a queue closing with Redis away never ends).
   */
  async run(deadlineOf: number | ((phase: StopPhase) => number), log: Logger): Promise<void> {
    if (this.ran) return;
    this.ran = true;
    for (const phase of STOP_PHASES) {
      const steps = this.steps.get(phase)!;
      if (!steps.length) continue;
      const started = Date.now();
      const deadline = typeof deadlineOf === 'number' ? deadlineOf : deadlineOf(phase);
      await Promise.all(
        steps.map(async ({ name, fn }) => {
          const stopped = Promise.resolve()
            .then(() => fn(deadline))
            .catch((err) => log.error({ err, phase, part: name }, 'stopping a part failed'));
          if (!(await settledBefore(stopped, deadline))) log.warn({ phase, part: name }, 'still stopping at the end of the grace period; left behind');
        }),
      );
      log.info({ phase, parts: steps.map((s) => s.name), ms: Date.now() - started }, 'stop phase done');
    }
  }
}
