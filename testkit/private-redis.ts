// A redis-server of its own on a free port, which a test may stop, start again or flush without
// touching the shared Redis on 6379 that other suites use. No persistence: a restart starts empty.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { until } from './wait.ts';

export interface PrivateRedis {
  port: number;
  url: string;
  /** stops the server (SIGTERM) and waits for it to exit */
  stop(): Promise<void>;
  /** starts it again on the same port */
  start(): Promise<void>;
}

/** Whether a Redis server answers PING on this port of 127.0.0.1. */
export async function answers(port: number): Promise<boolean> {
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {}); // refused while the server starts: the caller asks again
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const start = async () => {
    const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: 'ignore',
    });
    proc = p;
    const reap = () => p.kill('SIGKILL'); // never outlive the test process
    process.once('exit', reap);
    p.once('exit', () => process.removeListener('exit', reap));
    try {
      await until(() => answers(port), 10_000, `redis-server on port ${port}`, 50);
    } catch (e) {
      p.kill('SIGKILL');
      throw e;
    }
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}
