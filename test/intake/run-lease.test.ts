// A file whose intake step the receiving process runs itself (IncomingFile.inProcess, SMTP's
// files: src/intake/local-runs.ts): attached without a job, and kept from the reconciler by its
// record's lease only while that lasts (a process that died leaves it to run out).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueuedIntakeScheduler } from '../../src/intake/intake-queue.ts';
import { newImport } from '../../src/intake/new-import.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;

async function invoice(scope: Scope, number: string) {
  const { container: c } = t.svc;
  const { customer } = await c.customers.create(scope, { customerCode: `C-${number}`, name: 'Lease BV' }, false);
  return c.invoices.create(scope, {
    customer: customer.id,
    invoiceNumber: number,
    invoiceDate: '01-02-2026',
    invoiceDuedate: '01-03-2026',
    invoiceTotal: '5.00',
  });
}

beforeAll(async () => {
  t = await startIntakeApp();
});
afterAll(async () => {
  await t?.close();
});

describe('intake run in the receiving process', () => {
  it('attaches a file received inProcess without a job; a file without it has its job', async () => {
    const { live: scope, liveKey: key } = await t.account();
    const c = t.svc.container;
    const invoices = { 'RL-1': (await invoice(scope, 'RL-1')).id, 'RL-2': (await invoice(scope, 'RL-2')).id };
    const file = async (name: string, inProcess?: boolean) =>
      (await c.intake.receive({ scope, channel: 'mail', sender: 'a@example.org', filename: name, bytes: await makePdf(name), inProcess })).id;
    const here = await file('RL-1.pdf', true);
    const queued = await file('RL-2.pdf');
    expect(await t.waitFor(key, here)).toMatchObject({ status: 'attached', invoice: invoices['RL-1'] });
    expect(await t.waitFor(key, queued)).toMatchObject({ status: 'attached', invoice: invoices['RL-2'] });
    const scheduler = new QueuedIntakeScheduler(c.jobs);
    expect(await scheduler.state(here)).toBe('missing');
    expect(await scheduler.state(queued)).toBe('completed');
  });

  it('the reconciler passes over a pending record under its lease, and takes it once the lease is over', async () => {
    const { live: scope } = await t.account();
    const c = t.svc.container;
    const staged = async (name: string, runLeaseMs: number | undefined, many: boolean) => {
      const f = { ...newImport({ scope, channel: 'mail', sender: 'a@example.org', filename: name, bytes: await makePdf(name) }, false), runLeaseMs };
      const [record] = many
        ? await c.intakeRepos.intake.insertMany(t.db, [
            { scope, f },
            { scope, f: { ...newImport({ scope, channel: 'mail', sender: 'b', filename: `${name}-2.pdf`, bytes: await makePdf(name) }, false) } },
          ])
        : [await c.intakeRepos.intake.insert(t.db, scope, f)];
      return record.id;
    };
    const leased = [await staged('RL-9.pdf', 600_000, false), await staged('RL-10.pdf', 600_000, true)];
    const over = [await staged('RL-11.pdf', 1, false), await staged('RL-12.pdf', 1, true)];
    const plain = await staged('RL-13.pdf', undefined, false);
    const pendingNow = async () => new Set((await c.intakeRepos.intake.listPending(t.db, 0, 10_000)).map((r) => r.id));
    // a lease of 1 ms is over at once, by the database's clock
    await expect
      .poll(async () => {
        const p = await pendingNow();
        return [...over, plain].filter((id) => p.has(id)).length;
      })
      .toBe(3);
    const p = await pendingNow();
    for (const id of leased) expect(p.has(id)).toBe(false);
    await c.reconciler.run();
    const scheduler = new QueuedIntakeScheduler(c.jobs);
    for (const id of leased) expect(await scheduler.state(id)).toBe('missing');
    for (const id of [...over, plain]) expect(await scheduler.state(id)).not.toBe('missing');
  });
});
