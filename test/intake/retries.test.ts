// Waiting, the match window, and transient failures, with short backoffs; a transient failure's
// retry is said in the log (warn), a wait for the invoice is not.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { until } from '../../testkit/wait.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;
let acct: Awaited<ReturnType<IntakeApp['account']>>;
/** the service's warn and error lines, parsed */
const warnings: { msg: string; intakeId?: string; err?: string; attempt?: number }[] = [];
const logTo = new Writable({
  write(chunk, _enc, cb) {
    for (const line of String(chunk).split('\n').filter(Boolean)) warnings.push(JSON.parse(line));
    cb();
  },
});

beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 100, intakeBackoffMaxMs: 300, intakeMatchWindowMs: 6_000, logLevel: 'warn' }, logTo });
  acct = await t.account();
  // a first file through the whole path, so that the timed tests below do not wait for start-up
  // (PDF threads, worker connections) on a busy machine
  const { customer } = await t.svc.container.customers.create(acct.live, { customerCode: 'C-WARM', name: 'Warm' }, false);
  await t.svc.container.invoices.create(acct.live, {
    customer: customer.id,
    invoiceNumber: 'WARM-1',
    invoiceDate: '01-02-2026',
    invoiceDuedate: '01-03-2026',
    invoiceTotal: '1.00',
  });
  const warm = await t.svc.intake.receive({ scope: acct.live, channel: 'ftp', sender: 'x', filename: 'WARM-1.pdf', bytes: await makePdf('warm') });
  expect((await t.waitFor(acct.liveKey, warm.id, undefined, 60_000)).status).toBe('attached');
});
afterAll(() => t?.close());

async function invoiceFor(number: string) {
  const { container: c } = t.svc;
  const { customer } = await c.customers.create(acct.live, { customerCode: `C-${number}`, name: 'Retry BV' }, false);
  return c.invoices.create(acct.live, {
    customer: customer.id,
    invoiceNumber: number,
    invoiceDate: '01-02-2026',
    invoiceDuedate: '01-03-2026',
    invoiceTotal: '10.00',
  });
}

describe('no invoice', () => {
  it('waits with retries until the window ends, then fails with the reason; the failed job stays visible', async () => {
    const number = `NEVER-${Date.now().toString(36)}`;
    const seen: string[] = [];
    t.svc.container.events.on('intakeStatus', (e) => void (e.channel === 'mail' && seen.push(`${e.intakeId}:${e.status}`)));
    const rec = await t.svc.intake.receive({ scope: acct.live, channel: 'mail', sender: 'a@b.nl', filename: `${number}.pdf`, bytes: await makePdf('never') });
    const done = await t.waitFor(acct.liveKey, rec.id, (r) => r.status === 'failed', 45_000);
    expect(done).toMatchObject({ status: 'failed', reason: `No invoice with id or number ${number}`, invoice: null });
    // it failed at the end of its window, not before
    expect(new Date(done.updatedAt).getTime() - new Date(done.receivedAt).getTime()).toBeGreaterThanOrEqual(6_000);
    const job = await t.svc.container.jobs.bullQueue('intake').getJob(rec.id);
    expect(await job!.getState()).toBe('failed');
    expect(job!.attemptsMade).toBeGreaterThanOrEqual(2); // it was retried while it waited
    expect(seen).toEqual(['received', 'waiting', 'failed'].map((st) => `${rec.id}:${st}`));
    expect(job!.failedReason).toBe(`No invoice with id or number ${number}`);
    // waiting is the normal path: no warn line for its retries
    expect(warnings.filter((w) => w.intakeId === rec.id)).toEqual([]);
  });
});

describe('transient failures', () => {
  it('a database error is retried, and the file is attached once the database is back', async () => {
    const number = `TRANS-${Date.now().toString(36)}`;
    const inv = await invoiceFor(number);
    await t.db.query('alter table documents rename to documents_away');
    let rec;
    try {
      rec = await t.svc.intake.receive({ scope: acct.live, channel: 'ftp', sender: 'x', filename: `${number}.pdf`, bytes: await makePdf('transient') });
      const id = rec.id;
      await until(async () => ((await t.svc.container.jobs.bullQueue('intake').getJob(id))?.attemptsMade ?? 0) >= 2, 45_000, 'two failed attempts');
      const r = await t.svc.container.intake.get(acct.live, id);
      expect(r.status).toBe('received');
      // each failed attempt that is retried is a warn line with the database's error
      const retried = warnings.filter((w) => w.intakeId === id && w.msg === 'intake job failed; retried');
      expect(retried.length).toBeGreaterThanOrEqual(2);
      expect(retried[0]).toMatchObject({ attempt: 1, err: expect.stringMatching(/relation "documents" does not exist/) });
    } finally {
      await t.db.query('alter table documents_away rename to documents');
    }
    const done = await t.waitFor(acct.liveKey, rec.id, undefined, 45_000);
    expect(done).toMatchObject({ status: 'attached', invoice: inv.id });
  });
});

describe('attempts used up', () => {
  let t2: IntakeApp;
  afterAll(() => t2?.close());

  it('records the last error as the reason when a transient error outlasts the attempts', async () => {
    t2 = await startIntakeApp({ config: { intakeAttempts: 3, intakeBackoffMs: 50, intakeBackoffMaxMs: 100 } });
    const a = await t2.account();
    const { customer } = await t2.svc.container.customers.create(a.live, { customerCode: 'C-1', name: 'X' }, false);
    await t2.svc.container.invoices.create(a.live, {
      customer: customer.id,
      invoiceNumber: 'GIVEUP-1',
      invoiceDate: '01-02-2026',
      invoiceDuedate: '01-03-2026',
      invoiceTotal: '10.00',
    });
    await t2.db.query('alter table documents rename to documents_away');
    const rec = await t2.svc.intake.receive({ scope: a.live, channel: 'ftp', sender: 'x', filename: 'GIVEUP-1.pdf', bytes: await makePdf('give up') });
    const done = await t2.waitFor(a.liveKey, rec.id, (r) => r.status === 'failed', 45_000);
    // the database's error is the operators' (logged), never the person's reason
    expect(done.reason).toBe(
      'Gave up after 3 attempts: the service could not process the file (an error on our side, logged for the operators); retry it or send it again',
    );
    await t2.db.query('alter table documents_away rename to documents');
  });
});
