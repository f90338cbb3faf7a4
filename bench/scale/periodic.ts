// bench:scale's periodic tasks: a worker process with a queue prefix of its own (so no intake job
// reaches it) and every task on the shortest interval config allows (1 s), until each task has
// run RUNS times; the figure is the median of a task's runs after its first, as the service logs
// it (`periodic task done`, ms), so a first run that finds work left by the intake (a sweep's
// first pass) does not stand for the steady state. The first run is printed beside it.
import os from 'node:os';
import { randomToken } from '../../src/domain/ids.ts';
import type { ServiceProcess } from '../../testkit/service-process.ts';
import { pct } from '../bench-kit.ts';
import type { Figure } from './probes.ts';

const TASKS = [
  'intake.reconcile',
  'intake.retention',
  'test-data.purge',
  'idempotency.purge',
  'sessions.purge',
  'mail-claims.purge',
  'trail.purge',
  'webhooks.sweep',
  'mail.smtp-reconcile',
];
const RUNS = 6;

export async function periodicFigures(
  start: (env: Record<string, string>) => Promise<{ p: ServiceProcess }>,
  stop: (p: ServiceProcess) => Promise<void>,
  log: (s: string) => void,
  timeoutMs = 300_000,
): Promise<Figure[]> {
  const { p } = await start({
    REDIS_PREFIX: `iiperiodic${randomToken(6)}`,
    RECONCILE_INTERVAL_MS: '1000',
    PURGE_INTERVAL_MS: '1000',
    WEBHOOK_DISPATCH_INTERVAL_MS: '1000',
    ANALYZE_INTERVAL_MS: '0',
  });
  const runs = () => {
    const by = new Map<string, number[]>(TASKS.map((t) => [t, []]));
    for (const l of p.logs) if (l.msg === 'periodic task done' && by.has(l.task)) by.get(l.task)!.push(Number(l.ms));
    return by;
  };
  const until = Date.now() + timeoutMs;
  while ([...runs().values()].some((r) => r.length < RUNS) && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
  const failed = p.logs.filter((l) => l.msg === 'periodic task failed');
  await stop(p);
  if (failed.length) throw new Error(`periodic tasks failed: ${failed.map((l) => `${l.task}: ${l.err?.message ?? ''}`).join('; ')}`);
  const load = os.loadavg()[0];
  return [...runs()].map(([task, ms]) => {
    if (ms.length < 2) log(`  ${task}: only ${ms.length} run(s) in ${timeoutMs / 1000} s`);
    const later = ms.slice(1).sort((a, b) => a - b);
    return {
      name: `periodic ${task}`,
      value: later.length ? pct(later, 50) : (ms[0] ?? NaN),
      unit: 'ms',
      load,
      note: `first run ${ms[0] ?? '-'} ms, ${ms.length} runs`,
    };
  });
}
