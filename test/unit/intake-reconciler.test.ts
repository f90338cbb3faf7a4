// Intake's classes are handed their repositories (app/container.ts builds them): here the
// reconciler runs on an intake repository that keeps its pending records in memory, over a
// database that refuses every statement, and a scheduler that remembers its jobs' states.
import { describe, expect, it } from 'vitest';
import { DatabaseStore } from '../../src/storage/database-store.ts';
import type { Database, Queryable } from '../../src/db/database.ts';
import type { IntakeJobRef, IntakeJobState, IntakeScheduler } from '../../src/intake/intake-jobs.ts';
import { IntakeRepository, type PendingRef } from '../../src/intake/intake-repository.ts';
import { IntakeReconciler } from '../../src/intake/reconciler.ts';
import { createLogger } from '../../src/platform/logger.ts';

const refuse = async (): Promise<never> => {
  throw new Error('a statement reached the database');
};
const noSql: Database = { kind: 'pglite', query: refuse, transaction: (fn) => fn({ query: refuse, exec: refuse }), close: async () => {} };

class MemoryIntake extends IntakeRepository {
  readonly pages: number[] = [];
  constructor(private readonly pending: PendingRef[]) {
    super(new DatabaseStore(noSql)); // never read: the reconciler needs no bytes
  }
  override async listPending(_q: Queryable, afterSeq: number, limit: number): Promise<PendingRef[]> {
    this.pages.push(afterSeq);
    return this.pending.filter((r) => r.seq > afterSeq).slice(0, limit);
  }
}

class MemoryScheduler implements IntakeScheduler {
  readonly restored: { ref: IntakeJobRef; state: IntakeJobState }[] = [];
  constructor(private readonly states: Map<string, IntakeJobState>) {}
  async enqueue(): Promise<void> {}
  async state(id: string): Promise<IntakeJobState> {
    return this.states.get(id) ?? 'missing';
  }
  async promote(): Promise<boolean> {
    return false;
  }
  async cancel(): Promise<void> {}
  async restore(ref: IntakeJobRef, state: IntakeJobState): Promise<void> {
    this.restored.push({ ref, state });
  }
}

describe('IntakeReconciler on the repositories it is handed', () => {
  it('pages through every pending record and restores only the jobs that are gone or finished', async () => {
    const pending = Array.from({ length: 1203 }, (_, i): PendingRef => ({ seq: i + 1, id: `imp_${i + 1}`, accountId: 'acc_1', mode: 'test' }));
    const states = new Map<string, IntakeJobState>(pending.map((r) => [r.id, 'waiting']));
    states.set('imp_7', 'missing');
    states.set('imp_600', 'failed');
    states.set('imp_1203', 'completed');
    states.set('imp_8', 'active');
    states.set('imp_9', 'delayed');
    const intake = new MemoryIntake(pending);
    const scheduler = new MemoryScheduler(states);
    const reconciler = new IntakeReconciler(noSql, { intake }, scheduler, createLogger('silent'));

    expect(await reconciler.run()).toEqual({ checked: 1203, restored: 3 });
    expect(intake.pages).toEqual([0, 500, 1000, 1203]);
    expect(scheduler.restored.map((r) => [r.ref.intakeId, r.state]).sort()).toEqual([
      ['imp_1203', 'completed'],
      ['imp_600', 'failed'],
      ['imp_7', 'missing'],
    ]);
    expect(scheduler.restored[0].ref).toMatchObject({ accountId: 'acc_1', mode: 'test' });
  });

  it('shares a pass already under way', async () => {
    const intake = new MemoryIntake([{ seq: 1, id: 'imp_1', accountId: 'acc_1', mode: 'live' }]);
    const reconciler = new IntakeReconciler(noSql, { intake }, new MemoryScheduler(new Map()), createLogger('silent'));
    const [a, b] = await Promise.all([reconciler.run(), reconciler.run()]);
    expect(a).toBe(b);
    expect(intake.pages).toEqual([0, 1]);
  });
});
