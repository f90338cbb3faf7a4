// Periodic work on /metrics: each task's last finished run and next scheduled run, read from Redis
// at scrape time (the same in every process: aggregate with max).
import { Gauge, type Registry } from 'prom-client';

export type PeriodicReading = { task: string; lastRun?: number; nextRun?: number }[];

export function observePeriodicWork(registry: Registry, read: () => Promise<PeriodicReading>): void {
  let reading: Promise<PeriodicReading | undefined> | undefined;
  // both gauges share one read per scrape
  const once = () =>
    (reading ??= read()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (reading = undefined))));
  const gauge = (name: string, help: string, pick: (r: PeriodicReading[number]) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['task'],
      registers: [registry],
      async collect() {
        this.reset();
        // Redis away: leave the series out rather than fail the whole scrape
        for (const r of (await once()) ?? []) {
          const at = pick(r);
          if (at !== undefined) this.set({ task: r.task }, at / 1000);
        }
      },
    });
  gauge('periodic_task_last_run_timestamp_seconds', 'Unix time a periodic task last finished, in any process', (r) => r.lastRun);
  gauge('periodic_task_next_run_timestamp_seconds', "Unix time of a periodic task's next scheduled run", (r) => r.nextRun);
}
