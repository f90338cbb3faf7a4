// A throwaway Prometheus server (Debian's /usr/bin/prometheus): its own config, rules and storage
// in a temp dir, on a free port of 127.0.0.1, scraping the targets of a file it watches (so a test
// adds processes as they start), stopped and removed again by stop().
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { pollFor } from './wait.ts';

export interface PrometheusOptions {
  /** the rules file's text */
  rules: string;
  job: string;
  /** scrape and rule evaluation interval, e.g. '1s' */
  interval: string;
}

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
}

export interface Prometheus {
  url: string;
  /** replaces the scraped targets (host:port), as file-based discovery reads them */
  setTargets(targets: string[]): void;
  /** GET /api/v1/query: the instant vector's samples; throws on an error answer */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** GET /api/v1/alerts: the active (pending or firing) alerts */
  alerts(): Promise<PromAlert[]>;
  /** GET /api/v1/targets: each active target's scrape health */
  targets(): Promise<{ scrapeUrl: string; health: string; lastError: string }[]>;
  log(): string;
  stop(): Promise<void>;
}

export async function startPrometheus(opts: PrometheusOptions): Promise<Prometheus> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-prometheus-'));
  const targetsFile = path.join(dir, 'targets.json');
  const setTargets = (targets: string[]) => {
    // written whole and renamed: the watcher never reads half a file
    fs.writeFileSync(`${targetsFile}.tmp`, JSON.stringify([{ targets }]));
    fs.renameSync(`${targetsFile}.tmp`, targetsFile);
  };
  setTargets([]);
  fs.writeFileSync(path.join(dir, 'rules.yml'), opts.rules);
  fs.writeFileSync(
    path.join(dir, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: opts.interval, scrape_timeout: opts.interval, evaluation_interval: opts.interval },
      rule_files: [path.join(dir, 'rules.yml')],
      scrape_configs: [{ job_name: opts.job, file_sd_configs: [{ files: [targetsFile], refresh_interval: opts.interval }] }],
    }),
  );
  const port = await freePort();
  const logLines: string[] = [];
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => logLines.push(chunk));
  const url = `http://127.0.0.1:${port}`;
  const api = async (p: string) => {
    const res = await fetch(`${url}${p}`);
    const body = (await res.json()) as { status: string; data: any; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${p}: ${body.error}`);
    return body.data;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const ready = await pollFor(
    async () => child.exitCode === null && (await fetch(`${url}/-/ready`)).ok,
    (ok) => ok || child.exitCode !== null,
    { ms: 30_000, everyMs: 100, tolerateErrors: true },
  ).catch(() => false);
  if (!ready) {
    await stop();
    throw new Error(`prometheus did not become ready: ${logLines.join('')}`);
  }
  return {
    url,
    setTargets,
    query: async (expr) => (await api(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    alerts: async () => (await api('/api/v1/alerts')).alerts,
    targets: async () => (await api('/api/v1/targets?state=active')).activeTargets,
    log: () => logLines.join(''),
    stop,
  };
}
