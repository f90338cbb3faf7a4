// Redis loses its data (FLUSHDB) while files are pending; the service restarts and its
// reconciler rebuilds the jobs from the database: every file attached exactly once.
// Private redis-server: FLUSHDB must never hit the shared one.
import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { QueuedIntakeScheduler } from '../../src/intake/intake-queue.ts';
import { queuePrefix } from '../../src/queue/job-definition.ts';
import { IntakeReconciler } from '../../src/intake/reconciler.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { until } from '../../testkit/wait.ts';

let redis: PrivateRedis;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let base: Config;
const running: RunningService[] = [];

beforeAll(async () => {
  redis = await startPrivateRedis();
  pgdb = await createPgDatabase();
  base = testConfig({ redisUrl: redis.url, databaseUrl: pgdb.url, intakeBackoffMs: 200, intakeBackoffMaxMs: 500 });
});
afterAll(async () => {
  for (const s of running) await s.stop().catch(() => {});
  await pgdb?.drop();
  await redis?.stop();
});

async function start(roles: Config['roles']): Promise<RunningService> {
  const config = { ...base, roles };
  const s = await startService(config, createLogger(config.logLevel));
  running.push(s);
  return s;
}

async function flushdb() {
  const r = new Redis(redis.url);
  await r.flushdb();
  r.disconnect();
}

async function setup(svc: RunningService, name: string, files: number, invoicesFirst: number) {
  const c = svc.container;
  const acct = await c.accounts.create(name);
  const scope: Scope = { accountId: acct.id, mode: 'live' };
  const { customer } = await c.customers.create(scope, { customerCode: `C-${name}`, name }, false);
  const create = (i: number, on: RunningService = svc) =>
    on.container.invoices.create(scope, {
      customer: customer.id,
      invoiceNumber: `${name}-${i}`,
      invoiceDate: '01-02-2026',
      invoiceDuedate: '01-03-2026',
      invoiceTotal: '1.00',
    });
  for (let i = 0; i < invoicesFirst; i++) await create(i);
  const pdf = await makePdf(name, 20_000);
  const ids: string[] = [];
  for (let i = 0; i < files; i++) {
    ids.push(
      (
        await c.intake.receive({
          scope,
          channel: 'mail',
          sender: 'x@y.nl',
          filename: `${name}-${i}.pdf`,
          bytes: Buffer.concat([pdf, Buffer.from(`\n%${i}\n`)]),
        })
      ).id,
    );
  }
  return { scope, ids, create };
}

const statusCounts = async (svc: RunningService, ids: string[]) =>
  Object.fromEntries(
    (
      await svc.container.db.query<{ status: string; n: number }>('select status, count(*)::int as n from intake_records where id = any($1) group by status', [
        ids,
      ])
    ).map((r) => [r.status, r.n]),
  );

describe('Redis loss', () => {
  it('the reconciler re-enqueues each lost job once, however often it runs', async () => {
    const svc = await start(['api']); // no workers: jobs stay queued
    const { ids } = await setup(svc, 'RECON', 12, 12);
    expect((await svc.container.jobs.bullQueue('intake').getJobCounts('wait')).wait).toBe(12);
    await flushdb();
    expect((await svc.container.jobs.bullQueue('intake').getJobCounts('wait')).wait).toBe(0);
    const reconciler = new IntakeReconciler(svc.container.db, svc.container.intakeRepos, new QueuedIntakeScheduler(svc.container.jobs), svc.container.log);
    const [a, b] = await Promise.all([reconciler.run(), reconciler.run()]); // concurrent calls share one pass
    expect(a).toEqual({ checked: 12, restored: 12 });
    expect(b).toBe(a);
    expect(await reconciler.run()).toEqual({ checked: 12, restored: 0 });
    const again = new IntakeReconciler(svc.container.db, svc.container.intakeRepos, new QueuedIntakeScheduler(svc.container.jobs), svc.container.log);
    expect(await again.run()).toEqual({ checked: 12, restored: 0 });
    expect((await svc.container.jobs.bullQueue('intake').getJobCounts('wait')).wait).toBe(12);
    const jobs = await svc.container.jobs.bullQueue('intake').getJobs(['wait']);
    expect(jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    await svc.container.db.query('delete from intake_staging where id = any($1)', [ids]); // the reconciler is global: leave nothing pending
    await svc.stop();
    running.splice(running.indexOf(svc), 1);
    await flushdb();
  });

  it('also restores jobs that finished while their record is still pending (e.g. failed for stalling too often)', async () => {
    const svc = await start(['api']);
    const { ids } = await setup(svc, 'ENDED', 4, 4);
    // a stand-in worker that finishes the jobs without touching the records: two fail, two complete
    const stand = new Worker(
      'intake',
      async (job) => {
        if (ids.indexOf(job.id!) < 2) throw new UnrecoverableError('job stalled more than allowable limit');
        return 'done elsewhere';
      },
      { connection: new Redis(redis.url, { maxRetriesPerRequest: null }), prefix: queuePrefix(base) },
    );
    await until(
      async () => {
        const c = await svc.container.jobs.bullQueue('intake').getJobCounts('failed', 'completed');
        return c.failed === 2 && c.completed === 2;
      },
      15_000,
      'two failed and two completed jobs',
    );
    await stand.close();
    const reconciler = new IntakeReconciler(svc.container.db, svc.container.intakeRepos, new QueuedIntakeScheduler(svc.container.jobs), svc.container.log);
    expect(await reconciler.run()).toEqual({ checked: 4, restored: 4 });
    expect(await svc.container.jobs.bullQueue('intake').getJobCounts('wait', 'failed', 'completed')).toEqual({ wait: 4, failed: 0, completed: 0 });
    expect((await svc.container.jobs.bullQueue('intake').getJob(ids[0]))!.attemptsMade).toBe(0);
    expect(await reconciler.run()).toEqual({ checked: 4, restored: 0 });
    await svc.container.db.query('delete from intake_staging where id = any($1)', [ids]);
    await svc.stop();
    running.splice(running.indexOf(svc), 1);
    await flushdb();
  });

  it('FLUSHDB with files pending and waiting, service restarted: every file attached exactly once', async () => {
    const before = await start(['api', 'worker']);
    // 30 with their invoice, 10 whose invoice does not exist yet (they wait, as delayed jobs)
    const { ids, create } = await setup(before, 'LOSS', 40, 30);
    await until(async () => (await statusCounts(before, ids)).waiting === 10, 30_000, '10 waiting files');
    await before.stop();
    running.splice(running.indexOf(before), 1);
    // more files arrive while no worker runs
    const receiver = await start(['api']);
    const scope = (await receiver.container.db.query('select account_id from intake_records where id = $1', [ids[0]]))[0].account_id;
    const more: string[] = [];
    const pdf = await makePdf('more', 20_000);
    for (let i = 40; i < 50; i++) {
      await create(i, receiver);
      more.push(
        (
          await receiver.intake.receive({
            scope: { accountId: scope, mode: 'live' },
            channel: 'ftp',
            sender: 'x',
            filename: `LOSS-${i}.pdf`,
            bytes: Buffer.concat([pdf, Buffer.from(`%${i}`)]),
          })
        ).id,
      );
    }
    await receiver.stop();
    running.splice(running.indexOf(receiver), 1);

    await flushdb();

    const after = await start(['api', 'worker']);
    for (let i = 30; i < 40; i++) await create(i, after); // the waiting files' invoices appear
    const all = [...ids, ...more];
    await until(async () => (await statusCounts(after, all)).attached === 50, 60_000, 'all 50 files attached');
    const perInvoice = await after.container.db.query<{ n: number }>(
      `select count(d.id)::int as n from invoices i left join documents d on d.invoice_id = i.id where i.account_id = $1 group by i.id`,
      [scope],
    );
    expect(perInvoice).toHaveLength(50);
    expect(perInvoice.every((r) => r.n === 1)).toBe(true);
  }, 180_000);
});
