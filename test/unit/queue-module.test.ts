// The queue module (src/queue/): every queue's table given to it at start, each job there with
// its handler; a table with a job lacking one is refused before anything connects.
import { describe, expect, it } from 'vitest';
import { QUEUE_TABLES } from '../../src/app/job-tables.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Logger } from '../../src/platform/logger.ts';
import { checkQueues, defineQueue, type QueueDefinition } from '../../src/queue/job-definition.ts';
import { JobQueues } from '../../src/queue/job-queues.ts';
import type { RedisClient } from '../../src/queue/redis-connection.ts';

const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: 'unit' });

/** A Redis that counts every use but listening to its events (which sends nothing): the refusal must come before any. */
function countingRedis() {
  const seen = { touched: 0 };
  const redis = new Proxy({}, { get: (_, key) => (key === 'on' || seen.touched++, () => undefined) }) as unknown as RedisClient;
  return { redis, seen };
}

/** A copy of `table` with the handler of job `name` taken away (as a table written without one). */
function without(table: QueueDefinition<never>, name: string): QueueDefinition<never> {
  return { ...table, jobs: table.jobs.map((j) => (j.name === name ? { ...j, handler: undefined as never } : j)) };
}

describe('queue module', () => {
  it('is given intake, webhooks, mail and periodic, each job name once, each job with a handler', () => {
    expect(QUEUE_TABLES.map((q) => q.name)).toEqual(['intake', 'webhooks', 'mail', 'periodic']);
    const all = QUEUE_TABLES.flatMap((q) => q.jobs.map((j) => j.name));
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain('intake.reconcile');
    expect(() => checkQueues(QUEUE_TABLES)).not.toThrow();
    for (const q of QUEUE_TABLES) for (const j of q.jobs) expect(j.queue, j.name).toBe(q.name);
  });

  it('every periodic job has its interval from config', () => {
    const periodic = QUEUE_TABLES.find((q) => q.name === 'periodic')!;
    expect(periodic.jobs.filter((j) => typeof j.every !== 'function').map((j) => j.name)).toEqual([]);
    const queues = new JobQueues(config, countingRedis().redis, {} as Logger, QUEUE_TABLES);
    expect(queues.intervals('periodic')['intake.reconcile']).toBe(config.reconcileIntervalMs);
  });

  it('refuses at start a table whose job has no handler, naming it, before Redis is touched', () => {
    const { redis, seen } = countingRedis();
    for (const table of QUEUE_TABLES) {
      const [first] = table.jobs;
      const tables = QUEUE_TABLES.map((t) => (t === table ? without(t, first.name) : t));
      expect(() => new JobQueues(config, redis, {} as Logger, tables)).toThrow(`No handler for ${table.name} job(s): ${first.name}`);
    }
    expect(seen.touched).toBe(0);
  });

  it("refuses a job listed in another queue's table, a name used twice, and a worker for a table without handlers", () => {
    const [intake, webhooks] = QUEUE_TABLES;
    expect(() => checkQueues([defineQueue({ name: 'x', worker: () => ({ concurrency: 1 }), jobs: intake.jobs as never })])).toThrow(
      /names queue intake but is listed in x's table/,
    );
    expect(() => checkQueues([intake, { ...webhooks, name: 'intake2', jobs: intake.jobs.map((j) => ({ ...j, queue: 'intake2' })) }])).toThrow(/used twice/);
    const { redis, seen } = countingRedis();
    const queues = new JobQueues(config, redis, {} as Logger, QUEUE_TABLES);
    expect(() => queues.startWorker(without(webhooks, 'webhook.deliver'), {} as never)).toThrow('No handler for webhooks job(s): webhook.deliver');
    expect(seen.touched).toBe(0);
  });

  it('refuses to queue a job that is in no table it was given', async () => {
    const { redis } = countingRedis();
    const queues = new JobQueues(config, redis, {} as Logger, QUEUE_TABLES.slice(0, 1));
    const [, webhooks] = QUEUE_TABLES;
    await expect(queues.add(webhooks.jobs[0] as never, {} as never)).rejects.toThrow(/in no queue table/);
  });
});
