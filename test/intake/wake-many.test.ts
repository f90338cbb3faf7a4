// New invoices created together wake their waiting files together: one look-up statement for
// many invoices (IntakeService.wakeWaiting through the Batcher), each file woken for its own
// invoice, in its own account and mode, and no other.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { postImport } from '../helpers/imports.ts';
import { until } from '../../testkit/wait.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;
let seq = 0;

// A backoff of five minutes: anything attached sooner than that was woken, not retried.
beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 300_000, intakeBackoffMaxMs: 300_000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

async function invoice(key: string, invoiceNumber: string) {
  const c = await t.request('POST', '/v2/customers', { key, body: { customerCode: `C-${Date.now().toString(36)}-${seq++}`, name: 'Wake BV' } });
  const res = await t.request('POST', '/v2/invoices', {
    key,
    body: { customer: c.body.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' },
  });
  expect(res.status).toBe(201);
  return res.body;
}

it('twelve invoices created at once in two accounts and both modes wake exactly the files named for them', async () => {
  const accounts = [await t.account(), await t.account()];
  const keys = accounts.flatMap((a) => [a.liveKey, a.testKey]);
  const tag = Date.now().toString(36);
  // each key's file waits for number W-<tag>-<i>; the same numbers exist in the other scopes too
  const waiting = await Promise.all(
    keys.map(async (key, i) => ({ key, i, rec: await postImport(t.request, key, `W-${tag}-${i}.pdf`, await makePdf(`wake ${i}`)) })),
  );
  for (const w of waiting) await t.waitFor(w.key, w.rec.id, (r) => r.status === 'waiting');
  for (const w of waiting)
    await until(async () => (await (await t.svc.container.jobs.bullQueue('intake').getJob(w.rec.id))!.getState()) === 'delayed', 10_000, 'the delayed job');
  // every scope gets its own number and, at the same moment, two numbers nothing waits for
  const created = await Promise.all(
    keys.flatMap((key, i) => [invoice(key, `W-${tag}-${i}`), invoice(key, `N-${tag}-${i}-a`), invoice(key, `N-${tag}-${i}-b`)]),
  );
  for (const w of waiting) {
    const mine = created[w.i * 3];
    const done = await t.waitFor(w.key, w.rec.id, undefined, 60_000); // the backoff is five minutes away
    expect(done).toMatchObject({ status: 'attached', invoice: mine.id });
  }
});
