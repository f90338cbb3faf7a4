// What bench:ftp needs beside bench-kit.ts: process figures, a readiness probe, the reference
// server's start, and the median of the rounds.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { ROOT } from '../testkit/paths.ts';

/** Peak resident set size of a process (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** The first line a child prints on stdout. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
  });
}

/** Starts the lean FTPS reference (ftp-bare-server.ts) in its own process; its port once it listens. */
export async function startLeanFtps(o: { databaseUrl: string; redisUrl: string; cert: string; key: string; nodeArgs: string[] }): Promise<{ proc: ChildProcess; port: number }> {
  const args = [...o.nodeArgs, '--import', 'tsx', 'bench/ftp-bare-server.ts', o.databaseUrl, o.redisUrl, 'iilean', o.cert, o.key];
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return { proc, port: Number(await firstLine(proc)) };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
