// Runs the real service as a child process (`node --import tsx src/main.ts --role ...`, or a
// build's `node <dir>/main.js`) and reads its JSON log lines, so tests can wait for what it says and
// find the address it listens on.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './paths.ts';

export interface ServiceProcess {
  proc: ChildProcess;
  roles: string[];
  logs: Record<string, any>[];
  stderr: string[];
  /** resolves with the first log line (past or future) that matches */
  waitForLog(match: (line: Record<string, any>) => boolean, ms?: number): Promise<Record<string, any>>;
  /** the address of /healthz, /readyz, /metrics (and the API when it runs the api role) */
  url(): Promise<string>;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  signal(sig: NodeJS.Signals): void;
}

/** What runs: the sources through tsx, or the main.js of a build (`npm run build`) in `build` (relative to the checkout). */
export type ServiceEntry = 'sources' | { build: string };

export function spawnService(roles: string[], env: Record<string, string>, entry: ServiceEntry = 'sources'): ServiceProcess {
  const main = entry === 'sources' ? ['--import', 'tsx', 'src/main.ts'] : [path.join(entry.build, 'main.js')];
  const proc = spawn(process.execPath, [...main, ...roles.flatMap((r) => ['--role', r])], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      OPS_PORT: '0',
      FTP_PORT: '0',
      SFTP_PORT: '0',
      SMTP_LISTEN: '127.0.0.1:0',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '20000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, any>[] = [];
  const stderr: string[] = [];
  const waiters = new Set<{ match: (l: Record<string, any>) => boolean; resolve: (l: Record<string, any>) => void }>();
  let buf = '';
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let line: Record<string, any>;
      try {
        line = JSON.parse(text);
      } catch {
        line = { msg: text };
      }
      logs.push(line);
      for (const w of waiters) if (w.match(line)) waiters.delete(w), w.resolve(line);
    }
  });
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const self: ServiceProcess = {
    proc,
    roles,
    logs,
    stderr,
    exited,
    waitForLog(match, ms = 60_000) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { match, resolve: (l: Record<string, any>) => (clearTimeout(timer), resolve(l)) };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(
            new Error(
              `process ${roles.join(',')} did not log the awaited line in ${ms} ms; stderr: ${stderr.join('')}; last logs: ${logs
                .slice(-5)
                .map((l) => l.msg)
                .join(' | ')}`,
            ),
          );
        }, ms);
        waiters.add(w);
        void exited.then(() => {
          if (waiters.delete(w))
            clearTimeout(timer),
              reject(
                new Error(
                  `process ${roles.join(',')} exited: ${stderr.join('')} ${logs
                    .slice(-3)
                    .map((l) => JSON.stringify(l))
                    .join(' ')}`,
                ),
              );
        });
      });
    },
    async url() {
      // a cold start compiles the TypeScript: slow on a loaded machine
      const line = await self.waitForLog((l) => l.msg === 'api listening' || l.msg === 'health and metrics listening', 180_000);
      return line.url as string;
    },
    signal(sig) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    },
  };
  return self;
}
