// `npm run bench:footprint`: what the embedded default costs a newcomer (docs: README, "The embedded
// default"). `npm start` on a fresh DATA_DIR (the shipped database, a private redis-server: REDIS_URL
// unset and REDIS_DEFAULT_URL pointed at a free port), then a restart without a source change, then
// the idle process tree 60 s after one account was created. Prints each figure with its target and
// the load average of that moment, and the floors measured alone in the same run: a bare Node
// process answering HTTP (the floor of any start), PGlite alone opening the same shipped database,
// the service's modules alone (imported, nothing started), and redis-server (from the tree).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../testkit/ports.ts';
import { sleep } from '../testkit/wait.ts';
import { cpuMs } from './bench-kit.ts';
import { residentKbOnce } from './resident-pages.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const IDLE_MS = Number(process.env.FOOTPRINT_IDLE_MS ?? 60_000);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-footprint-'));
const MB = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Every process below `pid`, as `ps` lists them. */
function descendants(pid: number): number[] {
  const pairs = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const below = (p: number): number[] => pairs.filter(([, parent]) => parent === p).flatMap(([child]) => [child, ...below(child)]);
  return below(pid);
}

function status(pid: number): Record<string, string> {
  try {
    return Object.fromEntries(
      fs
        .readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .map((l) => l.split(/:\s+/, 2)),
    );
  } catch {
    return {};
  }
}
const kb = (v: string | undefined) => Number.parseInt(v ?? '0', 10) || 0;
const name = (pid: number) => status(pid).Name ?? '?';

interface Started {
  proc: ChildProcess;
  readyMs: number;
  peakKb: number;
  cpuAtReadyMs: number;
  /** RSS of the tree once ready */
  readyKb: number;
  sampling: { stop(): number };
  /** load average (1 min) when it answered */
  load: string;
}

/** Starts `cmd`, samples the RSS of its whole tree every 20 ms, and waits for `url` to answer 200. */
async function startAndWait(cmd: string, args: string[], env: Record<string, string>, url: string): Promise<Started> {
  const t0 = performance.now();
  const proc = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  let peakKb = 0;
  let known = [proc.pid!];
  let tick = 0;
  // RSS every 20 ms from /proc; the tree itself (a `ps` run) every 200 ms
  const timer = setInterval(() => {
    if (tick++ % 10 === 0) known = [proc.pid!, ...descendants(proc.pid!)];
    peakKb = Math.max(
      peakKb,
      known.reduce((s, p) => s + kb(status(p).VmRSS), 0),
    );
  }, 20);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${cmd} ${args.join(' ')} exited with ${proc.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  const readyMs = performance.now() - t0;
  const tree = [proc.pid!, ...descendants(proc.pid!)];
  const readyKb = tree.reduce((s, p) => s + kb(status(p).VmRSS), 0);
  return {
    proc,
    readyMs,
    peakKb: 0,
    cpuAtReadyMs: cpuMs(tree),
    readyKb,
    load: os.loadavg()[0].toFixed(1),
    sampling: { stop: () => (clearInterval(timer), peakKb) },
  };
}

async function stopTree(s: Started): Promise<number> {
  const t0 = performance.now();
  const exited = new Promise((resolve) => s.proc.once('exit', resolve));
  s.proc.kill('SIGTERM');
  await exited;
  s.peakKb = s.sampling.stop();
  return performance.now() - t0;
}

const cpu0 = process.cpuUsage();
console.log(`footprint bench: load ${load()} (${os.cpus().length} cores)`);
// the install step (npm ci runs `prepare`); the figures below are of starts with a current dist/
execFileSync('npm', ['run', '--silent', 'prestart'], { cwd: ROOT, stdio: 'inherit' });

const port = await freePort();
const adminToken = `adm_footprint_${Date.now()}`;
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? work,
  DATA_DIR: path.join(work, 'data'),
  PORT: String(port),
  FTP_PORT: String(await freePort()),
  SFTP_PORT: String(await freePort()),
  ADMIN_TOKEN: adminToken,
  LOG_LEVEL: 'warn',
  REDIS_DEFAULT_URL: `redis://127.0.0.1:${await freePort()}`,
};
const readyz = `http://127.0.0.1:${port}/readyz`;

// references: the floor of a Node start, and PGlite opening the shipped database alone
const bare = await startAndWait(process.execPath, ['-e', `require('http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`], env, readyz);
await stopTree(bare);
// with the V8 flag the service sets for it (src/main.ts)
const pgliteAlone = await startAndWait(
  process.execPath,
  [
    '--liftoff-only',
    '--input-type=module',
    '-e',
    `
  import http from 'node:http';
  import { openPglite } from './dist/db/pglite.js';
  const db = await openPglite(${JSON.stringify(path.join(work, 'pglite-alone'))});
  await db.query('select 1');
  http.createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1');
  process.on('SIGTERM', () => db.close().then(() => process.exit(0)));`,
  ],
  env,
  readyz,
);
await stopTree(pgliteAlone);
// every module a start of all roles loads (start-service, its roles, the libraries), nothing started
const modulesAlone = await startAndWait(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `
  import http from 'node:http';
  await Promise.all(['start-service', 'start-up-summary', 'ftp-role', 'sftp-role'].map((m) => import('./dist/app/' + m + '.js')));
  await import('./dist/channels/sftp/host-keys.js');
  http.createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1');`,
  ],
  env,
  readyz,
);
await stopTree(modulesAlone);

const first = await startAndWait('npm', ['start'], env, readyz);
const firstStopMs = await stopTree(first);
const again = await startAndWait('npm', ['start'], env, readyz);
const res = await fetch(`http://127.0.0.1:${port}/admin/accounts`, {
  method: 'POST',
  headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'footprint' }),
});
if (res.status !== 201) throw new Error(`creating the account: ${res.status} ${await res.text()}`);
await sleep(IDLE_MS);
const tree = [again.proc.pid!, ...descendants(again.proc.pid!)];
const service = tree.find((p) => name(p) === 'node')!;
const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
const metric = (m: string) => Number(new RegExp(`^${m}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN) / 1024;
const parts = tree.map((p) => ({ pid: p, name: name(p), rssKb: kb(status(p).VmRSS), threads: kb(status(p).Threads) }));
const idleKb = parts.reduce((s, p) => s + p.rssKb, 0);
// the sum above counts a shared page once per process that maps it (npm's node and the service's
// share the node binary); this counts each physical page once: what the tree holds of the machine
const onceKb = residentKbOnce(parts.map((p) => p.pid));
const idleLoad = os.loadavg()[0].toFixed(1);
const serviceTreeKb = parts.filter((p) => p.name !== 'npm' && p.name !== 'npm start').reduce((s, p) => s + p.rssKb, 0);
const heapKb = metric('nodejs_heap_size_total_bytes');
const serviceKb = kb(status(service).VmRSS);
// PGlite's share: what opening the database adds to a bare Node process (both references above)
const pgliteKb = pgliteAlone.readyKb - bare.readyKb;
const threadNames = fs.readdirSync(`/proc/${service}/task`).map((t) => fs.readFileSync(`/proc/${service}/task/${t}/comm`, 'utf8').trim());
const againStopMs = await stopTree(again);
fs.rmSync(work, { recursive: true, force: true });

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
const s = (n: number) => `${(n / 1000).toFixed(2)} s`;
const redisKb = parts.filter((p) => p.name === 'redis-server').reduce((n, p) => n + p.rssKb, 0);
const at = (l: string) => `[load ${l}]`;
console.log(`
floors, each alone, same run:
  bare node answering HTTP                ready ${s(bare.readyMs)}  RSS ${MB(bare.readyKb)}  ${at(bare.load)}
  PGlite alone opening the shipped db     ready ${s(pgliteAlone.readyMs)}  RSS ${MB(pgliteAlone.readyKb)} (peak ${MB(pgliteAlone.peakKb)})  CPU ${s(pgliteAlone.cpuAtReadyMs)}  ${at(pgliteAlone.load)}
  the service's modules alone (imported)  ready ${s(modulesAlone.readyMs)}  RSS ${MB(modulesAlone.readyKb)}  CPU ${s(modulesAlone.cpuAtReadyMs)}  ${at(modulesAlone.load)}
  redis-server (idle, in the tree below)  RSS ${MB(redisKb)}
  sum of the floors (node + PGlite's share + the modules' share + redis): ${MB(pgliteAlone.readyKb + (modulesAlone.readyKb - bare.readyKb) + redisKb)}
first start (npm start, fresh DATA_DIR)  ready ${s(first.readyMs)}  (target <= 6 s: ${verdict(first.readyMs <= 6000)}; ${(first.readyMs / bare.readyMs).toFixed(1)} x bare node)  CPU of the tree to ready ${s(first.cpuAtReadyMs)}  ${at(first.load)}
                                         peak RSS of the tree ${MB(first.peakKb)}  (target <= 400 MB: ${verdict(first.peakKb <= 400 * 1024)})
restart, no source change                ready ${s(again.readyMs)}  (target <= 3 s: ${verdict(again.readyMs <= 3000)}; ${(again.readyMs / bare.readyMs).toFixed(1)} x bare node)  CPU to ready ${s(again.cpuAtReadyMs)}  peak ${MB(again.peakKb)}  ${at(again.load)}
idle ${IDLE_MS / 1000} s after one account       RSS of the tree, each page once ${onceKb === undefined ? 'unknown (pagemap needs root)' : MB(onceKb)}  (target <= 200 MB: ${onceKb === undefined ? 'unknown' : verdict(onceKb <= 200 * 1024)}); summed over the processes ${MB(idleKb)} (${verdict(idleKb <= 200 * 1024)}); the service's tree without npm's own process ${MB(serviceTreeKb)}  ${at(idleLoad)}
  ${parts.map((p) => `${p.name} ${MB(p.rssKb)} (${p.threads} threads)`).join(';  ')}
  service: V8 heap ${MB(heapKb)} (used ${MB(metric('nodejs_heap_size_used_bytes'))}), PGlite (WASM code and heap, as it adds to bare node) ~${MB(pgliteKb)}, Node itself ~${MB(bare.readyKb)}, the rest (code of the libraries, buffers) ~${MB(serviceKb - heapKb - pgliteKb - bare.readyKb)}
  service threads: ${Object.entries(threadNames.reduce<Record<string, number>>((m, n) => ((m[n] = (m[n] ?? 0) + 1), m), {}))
    .map(([n, c]) => `${n} x${c}`)
    .join(', ')}
stop (SIGTERM to npm)                    ${s(firstStopMs)} and ${s(againStopMs)}
bench's own CPU ${s((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000)};  load now ${load()}`);
