// What bench:ftp needs beside bench-kit.ts: process figures, a readiness probe.
import fs from 'node:fs';
import net from 'node:net';

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

export const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
