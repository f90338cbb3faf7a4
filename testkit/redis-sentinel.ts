// A Redis primary, one replica and three redis-sentinel processes of their own (free ports, own
// folder and config files), for failover tests. Nothing is persisted: what the primary had not
// yet sent to the replica when it dies is gone, as with a real crash.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { answers } from './private-redis.ts';
import { pollFor, until } from './wait.ts';

export interface SentinelSet {
  name: string;
  /** REDIS_SENTINELS */
  sentinels: string;
  /** the port of the primary the sentinels name now */
  primaryPort(): Promise<number>;
  /** SIGKILLs the current primary and waits until the sentinels have promoted the replica */
  killPrimary(): Promise<{ from: number; to: number }>;
  stop(): Promise<void>;
}

export async function startSentinelSet(name = 'iimaster'): Promise<SentinelSet> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-sentinel-'));
  const procs = new Map<number, ChildProcess>();
  const reap = () => procs.forEach((p) => p.kill('SIGKILL')); // never outlive the test process
  process.once('exit', reap);
  const run = (port: number, cmd: string, args: string[]) => {
    const p = spawn(cmd, args, { stdio: 'ignore' });
    procs.set(port, p);
  };
  const [primary, replica] = [await freePort(), await freePort()];
  const base = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--maxmemory-policy', 'noeviction'];
  run(primary, 'redis-server', ['--port', String(primary), ...base]);
  run(replica, 'redis-server', ['--port', String(replica), ...base, '--replicaof', '127.0.0.1', String(primary)]);
  await until(async () => (await answers(primary)) && (await answers(replica)), 10_000, 'redis primary and replica');
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  for (const port of sentinelPorts) {
    const conf = path.join(dir, `sentinel-${port}.conf`);
    fs.writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    run(port, 'redis-sentinel', [conf]);
  }
  await until(async () => (await Promise.all(sentinelPorts.map(answers))).every(Boolean), 10_000, 'three sentinels');
  const ask = async (port: number) => {
    const s = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    s.on('error', () => {});
    try {
      await s.connect();
      const [, p] = (await s.call('SENTINEL', 'get-master-addr-by-name', name)) as [string, string];
      const replicas = (await s.call('SENTINEL', 'replicas', name)) as unknown[];
      const sentinels = (await s.call('SENTINEL', 'sentinels', name)) as unknown[];
      return { primary: Number(p), replicas: replicas.length, sentinels: sentinels.length };
    } finally {
      s.disconnect();
    }
  };
  // ready when every sentinel knows the replica and the two other sentinels
  await pollFor(
    () => Promise.all(sentinelPorts.map(ask)),
    (v) => v.every((x) => x.primary === primary && x.replicas === 1 && x.sentinels === 2),
    { ms: 30_000, everyMs: 200, tolerateErrors: true },
  );
  const primaryPort = async () => (await ask(sentinelPorts[0])).primary;
  return {
    name,
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    primaryPort,
    async killPrimary() {
      const from = await primaryPort();
      procs.get(from)?.kill('SIGKILL');
      const to = await pollFor(primaryPort, (p) => p !== from, { ms: 60_000, everyMs: 100, tolerateErrors: true });
      if (to === from) throw new Error('the sentinels did not promote the replica within 60 s');
      return { from, to };
    },
    async stop() {
      process.removeListener('exit', reap);
      await Promise.all(
        [...procs.values()].map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise((r) => (p.once('exit', r), p.kill('SIGKILL'))))),
      );
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
