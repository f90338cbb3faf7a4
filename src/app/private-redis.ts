// Redis in the embedded default (docs/operations.md): with REDIS_URL unset the service uses a Redis
// that answers on REDIS_DEFAULT_URL, and otherwise starts a private redis-server of its own, its
// data (AOF) and unix socket in DATA_DIR/redis, stopped with the service. Without one either, it
// refuses to start with one message saying what to do, instead of retrying a dead address forever.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config/config.ts';
import { privateDir } from '../db/pglite.ts';
import type { Logger } from '../platform/logger.ts';

export interface PrivateRedis {
  /** a redis:// URL whose `path` is the socket's (ioredis takes it; a bare path is not a URL) */
  url: string;
  socket: string;
  pid: number;
  /** stops the server (SIGTERM: it writes its AOF and exits) */
  stop(): Promise<void>;
}

/** Neither REDIS_URL, nor a Redis on the default address, nor redis-server to start one. */
export class RedisMissingError extends Error {}

/** The private Redis in DATA_DIR belongs to a service that is still running. */
export class RedisInUseError extends Error {}

type Address = { host: string; port: number } | { path: string };

/**
 * The private Redis this start needs, if any: none when REDIS_URL is set or a Redis answers on
 * REDIS_DEFAULT_URL. Throws RedisMissingError when one is needed and redis-server is not installed.
 */
export async function privateRedisIfNeeded(config: Config, log: Logger): Promise<PrivateRedis | undefined> {
  if (!config.redisUrlIsDefault) return undefined;
  const url = new URL(config.redisDefaultUrl);
  if (await answers({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) })) return undefined;
  const dir = path.resolve(config.dataDir, 'redis');
  privateDir(dir);
  const socket = path.join(dir, 'redis.sock');
  // The service that started it writes its pid beside the socket: a Redis whose service still runs
  // is that service's (a second start on the same DATA_DIR must not pull it away); one whose
  // service was killed is left behind: it writes its AOF on SHUTDOWN, then ours takes over.
  const ownerFile = path.join(dir, 'owner.pid');
  const owner = Number(fs.readFileSync(ownerFile, { encoding: 'utf8', flag: 'a+' }).trim());
  if (owner > 0 && owner !== process.pid && isRunning(owner) && (await answers({ path: socket }))) {
    throw new RedisInUseError(
      `Another invoice-intake (pid ${owner}) runs on DATA_DIR ${path.resolve(config.dataDir)} with its private Redis. ` +
        `Stop it first, or give this one its own DATA_DIR (or REDIS_URL). If no such service runs, delete ${ownerFile}.`,
    );
  }
  if (await answers({ path: socket }, 'SHUTDOWN')) log.info({ socket }, 'stopped the private Redis an earlier run left behind');
  const proc = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--unixsocket',
      socket,
      '--unixsocketperm',
      '700',
      '--dir',
      dir,
      '--logfile',
      'redis.log',
      '--appendonly',
      'yes',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--daemonize',
      'no',
    ],
    { stdio: 'ignore', detached: true },
  ); // its own process group: a Ctrl-C reaches the service, which stops it last
  await new Promise<void>((resolve, reject) => {
    proc.once('spawn', resolve);
    proc.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new RedisMissingError(missingMessage(config)) : err));
  });
  // a service that exits without its stop (process.exit at the end of the grace period) takes it along
  const reap = () => proc.kill('SIGTERM');
  process.once('exit', reap);
  proc.once('exit', () => process.removeListener('exit', reap));
  await untilAnswers(proc, socket, path.join(dir, 'redis.log'));
  fs.writeFileSync(ownerFile, `${process.pid}\n`);
  log.info({ pid: proc.pid, socket }, 'started a private Redis (REDIS_URL unset, none on the default address)');
  return { url: `redis://localhost/?path=${encodeURIComponent(socket)}`, socket, pid: proc.pid!, stop: () => stopProcess(proc) };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process: it runs
  }
}

function missingMessage(config: Config): string {
  return [
    `Redis is needed and there is none: REDIS_URL is unset, nothing answers on ${config.redisDefaultUrl}, and redis-server (to start a private one) is not on the PATH.`,
    'Either install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) and start again: the service then runs its own, kept in DATA_DIR/redis;',
    'or set REDIS_URL to a Redis server (e.g. REDIS_URL=redis://redis.internal:6379).',
  ].join('\n');
}

/** Whether a Redis answers at the address: any RESP reply to `command` (a NOAUTH error still is Redis). */
function answers(address: Address, command = 'PING'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(address);
    const done = (yes: boolean) => (socket.destroy(), resolve(yes));
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    // SHUTDOWN answers nothing: the server closes the connection once it has saved
    socket.once('data', (chunk) => done(/^[+-]/.test(chunk.toString('latin1'))));
    socket.once('close', () => done(command === 'SHUTDOWN'));
  });
}

async function untilAnswers(proc: ChildProcess, socket: string, logFile: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await answers({ path: socket }))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join('\n') : '';
      throw new Error(`the private redis-server did not start (socket ${socket}); its log ${logFile} ends:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}
