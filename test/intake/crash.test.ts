// A worker process killed with SIGKILL in the middle of a batch of 200 files, then started
// again: every file is attached exactly once. Private redis-server, fresh PostgreSQL database,
// workers as child processes started the way `npm start` starts them.
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { until } from '../../testkit/wait.ts';
import { crashRig } from './intake-harness.ts';

const FILES = 200;
const rig = crashRig();
const workerEnv = () => ({ ...rig.env(), INTAKE_CONCURRENCY: '8', INTAKE_LOCK_MS: '10000', RECONCILE_INTERVAL_MS: '5000' });

const attachedCount = async () =>
  (await rig.svc.container.db.query<{ n: number }>(`select count(*)::int as n from intake_records where status = 'attached'`))[0].n;

describe('crash', () => {
  it('SIGKILL mid-batch, restart: all 200 files attached exactly once', async () => {
    const c = rig.svc.container;
    const acct = await c.accounts.create('crash');
    const scope = { accountId: acct.id, mode: 'live' as const };
    const { customer } = await c.customers.create(scope, { customerCode: 'C-CRASH', name: 'Crash BV' }, false);
    const invoices = [];
    for (let i = 0; i < FILES; i++) {
      invoices.push(
        await c.invoices.create(scope, {
          customer: customer.id,
          invoiceNumber: `CR-${i}`,
          invoiceDate: '01-02-2026',
          invoiceDuedate: '01-03-2026',
          invoiceTotal: '1.00',
        }),
      );
    }
    const base = await makePdf('crash', 150_000);
    for (let i = 0; i < FILES; i++) {
      // distinct bytes per file (a trailing comment is still a valid PDF)
      const bytes = Buffer.concat([base, Buffer.from(`\n% file ${i}\n`)]);
      await c.intake.receive({ scope, channel: 'ftp', sender: 'crash@127.0.0.1', filename: `CR-${i}.pdf`, bytes });
    }

    const first = rig.spawn(workerEnv());
    await until(async () => (await attachedCount()) >= 30, 60_000, `30 files attached by the first worker\n${first.output()}`);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await attachedCount();
    expect(first.signalCode).toBe('SIGKILL');
    expect(atKill).toBeLessThan(FILES); // it really died mid-batch

    const second = rig.spawn(workerEnv());
    await until(async () => (await attachedCount()) === FILES, 120_000, `all files attached after the restart\n${second.output().slice(-3000)}`);

    const perInvoice = await c.db.query<{ invoice_id: string; n: number }>(
      `select i.id as invoice_id, count(d.id)::int as n from invoices i left join documents d on d.invoice_id = i.id where i.account_id = $1 group by i.id`,
      [acct.id],
    );
    expect(perInvoice).toHaveLength(FILES);
    expect(perInvoice.filter((r) => r.n !== 1)).toEqual([]); // one document each, never attached twice
    const mismatched = await c.db.query(
      `select r.id from intake_records r join invoices i on i.id = r.invoice_id where r.account_id = $1 and (r.status <> 'attached' or r.document_id is distinct from i.document_id)`,
      [acct.id],
    );
    expect(mismatched).toEqual([]);
    // a job finishes in BullMQ just after its record is marked attached: wait for the last one to
    // complete (a failed job would never leave `failed`)
    await expect
      .poll(() => c.jobs.bullQueue('intake').getJobCounts('failed', 'wait', 'active', 'delayed'), { timeout: 30_000 })
      .toEqual({ failed: 0, wait: 0, active: 0, delayed: 0 });

    second.kill('SIGTERM');
    const code = await new Promise((r) => second.once('exit', (code) => r(code)));
    expect(code).toBe(0);
  }, 300_000);
});
