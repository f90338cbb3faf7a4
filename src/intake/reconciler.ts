// Redis schedules, the database remembers: every pending record must have a live job, unless a
// process runs it without one under its lease (local-runs.ts; listPending leaves those out). Run at
// start-up and on a schedule; idempotent (job id = intake id), so running it twice, or on several
// nodes at once, enqueues nothing twice.
import type { Logger } from '../platform/logger.ts';
import type { Database } from '../db/database.ts';
import type { IntakeScheduler } from './intake-jobs.ts';
import type { IntakeRepositories } from './intake-repositories.ts';

const BATCH = 500;

export class IntakeReconciler {
  private running?: Promise<{ checked: number; restored: number }>;

  constructor(
    private readonly db: Database,
    private readonly repos: Pick<IntakeRepositories, 'intake'>,
    private readonly scheduler: IntakeScheduler,
    private readonly log: Logger,
  ) {}

  /** Re-enqueues pending files whose job is gone or finished; a run already under way is shared. */
  run(): Promise<{ checked: number; restored: number }> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Resolves when no pass is under way (shutdown). */
  async idle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private async pass() {
    let after = 0;
    let checked = 0;
    let restored = 0;
    for (;;) {
      const batch = await this.repos.intake.listPending(this.db, after, BATCH);
      if (!batch.length) break;
      await Promise.all(
        batch.map(async (r) => {
          const state = await this.scheduler.state(r.id);
          if (state !== 'missing' && state !== 'failed' && state !== 'completed') return;
          await this.scheduler.restore({ intakeId: r.id, accountId: r.accountId, mode: r.mode }, state);
          restored++;
        }),
      );
      checked += batch.length;
      after = batch[batch.length - 1].seq;
    }
    if (restored) this.log.warn({ checked, restored }, 'reconciler re-enqueued intake jobs that were missing');
    else this.log.debug({ checked }, 'reconciler found every pending intake queued');
    return { checked, restored };
  }
}
