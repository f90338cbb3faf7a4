// bench:soak's readings: resident memory from /proc, and the service's own /metrics to know when
// every file is done (no intake or mail job waiting, active or delayed) and how each ended.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { httpClient } from '../../testkit/http-client.ts';

export function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The process and every process below it (the embedded default's redis-server). */
export function treeRssKb(pid: number): number {
  const pairs = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const below = (p: number): number[] => pairs.filter(([, parent]) => parent === p).flatMap(([child]) => [child, ...below(child)]);
  return [pid, ...below(pid)].reduce((s, p) => s + rssKb(p), 0);
}

const series = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .map((l) => ({ labels: l.slice(name.length + 1, l.lastIndexOf('}')), value: Number(l.slice(l.lastIndexOf(' ') + 1)) }));

/** The service's main-thread heap (used, total), external memory and the PDF check threads' heaps (total) in MB, from its /metrics. */
export async function heapMb(base: string): Promise<{ used: number; total: number; external: number; threads: number }> {
  const text = String((await httpClient(base)('GET', '/metrics')).body);
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  const mb = (n: number) => Math.round(n / 1024 / 1024);
  return {
    used: mb(value('nodejs_heap_size_used_bytes')),
    total: mb(value('nodejs_heap_size_total_bytes')),
    external: mb(value('nodejs_external_memory_bytes')),
    threads: mb(series(text, 'intake_pdf_thread_heap_bytes').find((s) => s.labels === 'kind="total"')?.value ?? 0),
  };
}

/** Waits until no intake or mail job is left to run; returns how the files ended (intake_imports_total by status). */
export async function settled(base: string, _adminToken: string, timeoutMs: number): Promise<string> {
  const request = httpClient(base);
  const until = Date.now() + timeoutMs;
  let quiet = 0;
  for (;;) {
    const text = String((await request('GET', '/metrics')).body);
    const open = series(text, 'bullmq_queue_jobs')
      .filter((s) => /queue="(intake|mail)"/.test(s.labels) && /state="(waiting|active|delayed|prioritized)"/.test(s.labels))
      .reduce((n, s) => n + s.value, 0);
    // twice in a row: a file between its staging and its job is in no queue for a moment
    quiet = open === 0 ? quiet + 1 : 0;
    if (quiet >= 3 || Date.now() > until) {
      const ended = series(text, 'intake_imports_total')
        .filter((s) => !/status="received"/.test(s.labels))
        .map((s) => `${s.labels.replace(/"/g, '')} ${s.value}`);
      return `${open === 0 ? 'every job done' : `${open} jobs still open at the time limit`}; ${ended.join(', ')}`;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
