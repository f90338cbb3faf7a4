// The queue module (src/queue/): every queue declared once, BullMQ imported nowhere else, and a
// worker refused at start when its handler table misses a job name of its queue.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import type { Logger } from '../../src/platform/logger.ts';
import { checkHandlers, JobQueues, type JobHandler } from '../../src/queue/job-queues.ts';
import { JOBS, jobNames, QUEUE_NAMES } from '../../src/queue/queue-catalog.ts';
import type { RedisClient } from '../../src/queue/redis-connection.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
const handler: JobHandler = async () => null;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|mts)$/.test(e.name) ? [p] : [];
  });
}

describe('queue module', () => {
  it('declares intake, webhooks, mail and periodic, each job name once across queues', () => {
    expect(QUEUE_NAMES).toEqual(['intake', 'webhooks', 'mail', 'periodic']);
    const all = QUEUE_NAMES.flatMap((q) => jobNames(q));
    expect(new Set(all).size).toBe(all.length);
    expect(jobNames('periodic')).toContain('intake.reconcile');
  });

  it('is the only folder of src/ that imports BullMQ', () => {
    const importers = sourceFiles(SRC)
      .filter((f) => /from\s+['"]bullmq['"]/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((f) => !f.startsWith('queue/'))).toEqual([]);
  });

  it('checks every queue\'s handler table, naming the job without a handler', () => {
    for (const queue of QUEUE_NAMES) {
      const full = Object.fromEntries(jobNames(queue).map((n) => [n, handler]));
      expect(() => checkHandlers(queue, full)).not.toThrow();
      const [first, ...rest] = jobNames(queue);
      expect(() => checkHandlers(queue, Object.fromEntries(rest.map((n) => [n, handler])))).toThrow(`No handler for ${queue} job(s): ${first}`);
    }
  });

  it('a job name without a handler stops the worker\'s start before it connects', () => {
    let touched = 0;
    // any use of the connection would count: the refusal must come first
    const redis = new Proxy({}, { get: () => (touched++, () => undefined) }) as unknown as RedisClient;
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: 'unit' });
    const queues = new JobQueues(config, redis, {} as Logger);
    const { [JOBS.periodic.analyze]: _left, ...withoutAnalyze } = Object.fromEntries(jobNames('periodic').map((n) => [n, handler]));
    expect(() => queues.startWorker('periodic', withoutAnalyze as never, { concurrency: 1 })).toThrow(`No handler for periodic job(s): ${JOBS.periodic.analyze}`);
    expect(() => queues.startWorker('webhooks', {} as never, { concurrency: 1 })).toThrow(`No handler for webhooks job(s): ${JOBS.webhooks.deliver}`);
    expect(touched).toBe(0);
  });
});
