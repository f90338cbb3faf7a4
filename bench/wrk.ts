// wrk as the load generator: its own process (C, epoll), so the client is not what limits the
// figures. Installs Debian's wrk when it is missing. Reports wrk's own CPU time (bash `times`),
// so every figure comes with the client's CPU share.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// done() prints one JSON line; request() is defined only for POST bodies, so a GET stays a
// static request that wrk builds once. Each thread numbers its bodies: "<n>" -> "<thread>-<count>".
const SCRIPT = `
local body = os.getenv("WRK_BODY")
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
if body then
  wrk.method = "POST"
  local n = 0
  request = function()
    n = n + 1
    return wrk.format(nil, nil, nil, (string.gsub(body, "<n>", tid .. "-" .. n)))
  end
end
function done(s, latency)
  local e = s.errors
  io.write(string.format('WRK_JSON {"requests":%d,"us":%d,"p50":%d,"p99":%d,"non2xx":%d,"errors":%d}\\n',
    s.requests, s.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`;

export interface WrkResult {
  rps: number;
  /** latency percentiles in ms */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** wrk's CPU time (user + system) in ms */
  clientCpuMs: number;
  seconds: number;
}

/** The path of wrk, installing Debian's package when it is not there. */
export function ensureWrk(): string {
  const find = () => execFileSync('sh', ['-c', 'command -v wrk || true'], { encoding: 'utf8' }).trim();
  if (find()) return find();
  console.log('wrk is missing: apt-get install -y wrk');
  execFileSync('sh', ['-c', 'apt-get install -y wrk >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y wrk >/dev/null)'], {
    stdio: 'inherit',
  });
  if (!find()) throw new Error('wrk could not be installed (apt-get install wrk)');
  return find();
}

let scriptFile: string | undefined;

/** One wrk run: `connections` over `threads` threads for `seconds`; `body` makes it a POST. */
export function runWrk(
  url: string,
  o: { seconds: number; connections: number; threads?: number; headers?: Record<string, string>; body?: string },
): Promise<WrkResult> {
  scriptFile ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ii-wrk-')), 'bench.lua');
  fs.writeFileSync(scriptFile, SCRIPT);
  const headers = Object.entries(o.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const args = ['-t', String(o.threads ?? 1), '-c', String(o.connections), '-d', `${o.seconds}s`, '--timeout', '10s', '-s', scriptFile, ...headers, url];
  // bash's `times` prints the CPU time of the children it waited for: wrk's, exactly
  const child = spawn('bash', ['-c', 'wrk "$@"; times', 'wrk', ...args], {
    env: { ...process.env, ...(o.body ? { WRK_BODY: o.body } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.on('exit', () => {
      const json = /WRK_JSON (.*)/.exec(out)?.[1];
      const times = (out.trim().split('\n').at(-1) ?? '').match(/(\d+)m([\d.]+)s/g) ?? [];
      if (!json || times.length < 2) return reject(new Error(`wrk failed: ${out}`));
      const secs = (t: string) => {
        const [, m, s] = /(\d+)m([\d.]+)s/.exec(t)!;
        return Number(m) * 60 + Number(s);
      };
      const r = JSON.parse(json);
      const seconds = r.us / 1e6;
      resolve({
        rps: r.requests / seconds,
        p50: r.p50 / 1000,
        p99: r.p99 / 1000,
        non2xx: r.non2xx,
        errors: r.errors,
        clientCpuMs: (secs(times[0]!) + secs(times[1]!)) * 1000,
        seconds,
      });
    });
  });
}
