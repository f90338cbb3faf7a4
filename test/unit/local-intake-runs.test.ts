// The intake step run without a job (src/intake/local-runs.ts): when a file is run here, what a
// run that does not end the file leaves (its job), and the stop.
import { describe, expect, it } from 'vitest';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import type { IntakeJobRef } from '../../src/intake/intake-jobs.ts';
import { WaitingForInvoice, type Attempt, type ProcessOutcome } from '../../src/intake/intake-processor.ts';
import { LocalRuns } from '../../src/intake/local-runs.ts';
import { createLogger } from '../../src/platform/logger.ts';

const ref = (n: number): IntakeJobRef => ({ intakeId: `imp_${n}`, accountId: 'acc_1', mode: 'test' });

/** Runs the test ends by hand, and the jobs queued. */
function harness(concurrency = 2, enqueue?: (ref: IntakeJobRef) => Promise<void>) {
  const started: { ref: IntakeJobRef; attempt: Attempt; end: (o: ProcessOutcome | Error) => void }[] = [];
  const queued: string[] = [];
  const runs = new LocalRuns({
    process: (r, attempt) =>
      new Promise<ProcessOutcome>((resolve, reject) => started.push({ ref: r, attempt, end: (o) => (o instanceof Error ? reject(o) : resolve(o)) })),
    enqueue:
      enqueue ??
      (async (r) => {
        queued.push(r.intakeId);
      }),
    concurrency,
    leaseMs: 30_000,
    attempts: 5,
    log: createLogger('silent'),
  });
  return { runs, started, queued };
}

const attached: ProcessOutcome = { status: 'attached', invoiceId: 'inv_1', documentId: 'doc_1', changed: true };

describe('LocalRuns', () => {
  it('runs a file as a first attempt of its job, and has room for the concurrency only', async () => {
    const { runs, started, queued } = harness(2);
    expect(runs.leaseMs).toBe(30_000);
    expect(runs.hasRoom()).toBe(true);
    runs.run(ref(1));
    runs.run(ref(2));
    expect(started.map((s) => [s.ref.intakeId, s.attempt])).toEqual([
      ['imp_1', { made: 0, max: 5 }],
      ['imp_2', { made: 0, max: 5 }],
    ]);
    expect(runs.hasRoom()).toBe(false);
    started[0].end(attached);
    await expect.poll(() => runs.hasRoom()).toBe(true);
    started[1].end({ status: 'failed', reason: 'Not a PDF' });
    await runs.close();
    expect(queued).toEqual([]);
  });

  it('hands a file that waits for its invoice, or whose run failed, to its job', async () => {
    const { runs, started, queued } = harness(4);
    runs.run(ref(1));
    runs.run(ref(2));
    runs.run(ref(3));
    started[0].end(new WaitingForInvoice(intakeReason('no_invoice', { awaits: { name: 'INV-1', einvoiceNumbers: [] } }), Date.now() + 60_000));
    started[1].end(new Error('connection terminated'));
    started[2].end({ status: 'skipped', why: 'already attached' });
    await runs.close();
    expect(queued.sort()).toEqual(['imp_1', 'imp_2']);
  });

  it('a job that cannot be queued is left to the reconciler (the run never rejects)', async () => {
    const { runs, started } = harness(1, async () => {
      throw new Error('Redis is away');
    });
    runs.run(ref(1));
    started[0].end(new Error('database away'));
    await expect(runs.close()).resolves.toBeUndefined();
  });

  it('close() waits for the runs under way; after it, no room and a file given anyway goes to its job', async () => {
    const { runs, started, queued } = harness(2);
    runs.run(ref(1));
    let closed = false;
    const closing = runs.close().then(() => (closed = true));
    expect(runs.hasRoom()).toBe(false);
    runs.run(ref(2));
    await expect.poll(() => queued).toEqual(['imp_2']);
    expect(closed).toBe(false);
    started[0].end(attached);
    await closing;
    expect(started).toHaveLength(1);
  });
});
