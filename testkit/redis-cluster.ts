// A Redis Cluster of its own: three primaries (no replicas) on free ports, each in its own folder,
// joined by `redis-cli --cluster create`. Nothing is persisted; stop() kills them and removes
// the folders.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { answers } from './private-redis.ts';
import { pollFor, until } from './wait.ts';

export interface RedisCluster {
  ports: number[];
  /** REDIS_CLUSTER_NODES */
  nodes: string;
  stop(): Promise<void>;
}

export async function startRedisCluster(primaries = 3): Promise<RedisCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-cluster-'));
  const procs: ChildProcess[] = [];
  const reap = () => procs.forEach((p) => p.kill('SIGKILL')); // never outlive the test process
  process.once('exit', reap);
  const ports: number[] = [];
  for (let i = 0; i < primaries; i++) ports.push(await freePort());
  for (const port of ports) {
    const home = path.join(dir, String(port));
    fs.mkdirSync(home);
    procs.push(
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          home,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--maxmemory-policy',
          'noeviction',
          // the cluster bus listens on port + 10000: a free port's neighbour may be taken, so name one
          '--cluster-port',
          String(await freePort()),
        ],
        { stdio: 'ignore' },
      ),
    );
  }
  try {
    await until(async () => (await Promise.all(ports.map(answers))).every(Boolean), 10_000, 'three cluster nodes');
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
    });
    // formed once every node says so and knows every other
    const state = async (port: number) => {
      const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => {});
      try {
        await r.connect();
        const info = String(await r.call('CLUSTER', 'INFO'));
        return /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${primaries}\\b`).test(info);
      } finally {
        r.disconnect();
      }
    };
    await pollFor(
      () => Promise.all(ports.map(state)),
      (v) => v.every(Boolean),
      { ms: 30_000, everyMs: 200, tolerateErrors: true },
    );
  } catch (err) {
    reap();
    throw err;
  }
  return {
    ports,
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
    async stop() {
      process.removeListener('exit', reap);
      await Promise.all(
        procs.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise((r) => (p.once('exit', r), p.kill('SIGKILL'))))),
      );
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
