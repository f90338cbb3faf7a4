// Periodic work runs once per installation: three worker processes on one database and Redis,
// every task on a 1 s schedule. Each scheduled slot runs once, in one of the processes (job ids
// are the scheduler's slots: none twice), so a task runs about once a second, not three times;
// /metrics shows each task's last and next run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { pollFor } from '../../testkit/wait.ts';

const TASKS = [
  'intake.reconcile',
  'intake.retention',
  'test-data.purge',
  'idempotency.purge',
  'sessions.purge',
  'mail-claims.purge',
  'webhooks.sweep',
  'statistics.analyze',
  'trail.purge',
  'documents.sweep',
];
const EVERY_MS = 1000;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let redis: PrivateRedis;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  [pgdb, redis] = await Promise.all([createPgDatabase(), startPrivateRedis()]);
  const env = {
    DATABASE_URL: pgdb.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    RECONCILE_INTERVAL_MS: String(EVERY_MS),
    PURGE_INTERVAL_MS: String(EVERY_MS),
    WEBHOOK_DISPATCH_INTERVAL_MS: String(EVERY_MS),
    ANALYZE_INTERVAL_MS: String(EVERY_MS),
    DOCUMENT_SWEEP_INTERVAL_MS: String(EVERY_MS),
  };
  const first = spawnService(['worker'], env); // migrates before the others start
  workers.push(first);
  await first.url();
  workers.push(spawnService(['worker'], env), spawnService(['worker'], env));
  await Promise.all(workers.map((w) => w.url()));
}, 240_000);

afterAll(async () => {
  for (const w of workers) w.signal('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await redis?.stop();
  await pgdb?.drop();
});

const runs = (task: string) =>
  workers.flatMap((w, i) =>
    w.logs.filter((l) => l.msg === 'periodic task done' && l.task === task).map((l) => ({ process: i, jobId: l.jobId as string, time: l.time as number })),
  );

describe('periodic work with three worker processes', () => {
  it('each task runs once per slot across the three processes, not once per process', async () => {
    const since = Date.now();
    await pollFor(() => TASKS.every((t) => runs(t).filter((r) => r.time >= since).length >= 6), Boolean, { ms: 60_000, everyMs: 200 });
    for (const task of TASKS) {
      const done = runs(task);
      expect(done.length, task).toBeGreaterThanOrEqual(6);
      // every run is its own slot of the schedule: no slot ran in two processes
      expect(new Set(done.map((r) => r.jobId)).size, task).toBe(done.length);
      const span = Math.max(...done.map((r) => r.time)) - Math.min(...done.map((r) => r.time));
      // once a second (plus the first run when the schedule was made), where one per process would be three
      expect(done.length, `${task}: ${done.length} runs in ${span} ms`).toBeLessThanOrEqual(Math.floor(span / EVERY_MS) + 2);
    }
  }, 90_000);

  it("/metrics of any process shows each task's last and next run", async () => {
    const text = await (await fetch(`${await workers[2].url()}/metrics`)).text();
    const now = Date.now() / 1000;
    for (const task of TASKS) {
      const last = Number(new RegExp(`^periodic_task_last_run_timestamp_seconds\\{task="${task.replace('.', '\\.')}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      const next = Number(new RegExp(`^periodic_task_next_run_timestamp_seconds\\{task="${task.replace('.', '\\.')}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(now - last, task).toBeLessThan(10);
      expect(next - now, task).toBeLessThan(5);
      expect(next, task).toBeGreaterThan(last - 5);
    }
  });
});
