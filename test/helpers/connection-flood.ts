// Floods before login (issue 49): many TCP connections from one loopback address (127.0.0.x, bound
// with localAddress) that never log in, what each of them saw, and the service's counter of the
// limits before login (transfer_prelogin_limit_hits_total).
import net from 'node:net';
import type { Counter } from 'prom-client';
import type { PreLoginLimit } from '../../src/ops/metrics.ts';
import type { RunningService } from '../../src/app/start-service.ts';

export interface Flood {
  /** sockets that got their first line or were closed */
  settled(): number;
  /** sockets whose first line matches */
  greeted(re: RegExp): number;
  /** every line the sockets received */
  replies(): string[];
  closedCount(): number;
  end(): void;
}

/**
 * `n` connections from `localAddress` at once, each silent after connecting (or after writing
 * `send`, e.g. an SSH identification line); `greeting: false` for protocols where the server waits (TLS).
 */
export async function flood(port: number, localAddress: string, n: number, o: { greeting?: boolean; send?: string } = {}): Promise<Flood> {
  const sockets = await Promise.all(Array.from({ length: n }, () => rawConnect(port, localAddress).catch(() => undefined)));
  if (o.send) for (const s of sockets) if (s && !s.destroyed) s.write(o.send);
  const first = new Map<net.Socket, string>();
  const lines: string[] = [];
  const closed = new Set<net.Socket>();
  for (const s of sockets) {
    if (!s) continue;
    let buffer = '';
    s.on('data', (d) => {
      buffer += d.toString('latin1');
      let i;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        lines.push(line);
        if (!first.has(s)) first.set(s, line);
      }
    });
    s.on('close', () => closed.add(s));
    if (s.destroyed) closed.add(s);
  }
  const failed = sockets.filter((s) => !s).length;
  return {
    settled: () => failed + sockets.filter((s) => s && (first.has(s) || closed.has(s) || o.greeting === false)).length,
    greeted: (re) => [...first.values()].filter((l) => re.test(l)).length,
    replies: () => [...lines],
    closedCount: () => failed + closed.size,
    end: () => sockets.forEach((s) => s?.destroy()),
  };
}

/** A TCP connection from `localAddress`, resolved once connected. */
export function rawConnect(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
    s.on('error', () => {});
  });
}

/** When the server closed `socket` (Date.now()); rejects when it is still open after `ms`. */
export function openedWithin(socket: net.Socket, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve(Date.now());
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server left the socket open for ${ms} ms`));
    }, ms);
    socket.resume();
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now());
    });
  });
}

/** transfer_prelogin_limit_hits_total{protocol, limit} in the service's registry (what GET /metrics serves). */
export async function limitHits(app: { svc: RunningService }, protocol: 'ftp' | 'sftp', limit: PreLoginLimit): Promise<number> {
  const metric = app.svc.container.metrics.registry.getSingleMetric('transfer_prelogin_limit_hits_total') as Counter | undefined;
  const values = metric ? (await metric.get()).values : [];
  return values.find((v) => v.labels.protocol === protocol && v.labels.limit === limit)?.value ?? 0;
}
