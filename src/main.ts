import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { ALL_ROLES, ConfigError, loadConfig, type Role } from './config/config.ts';
import { createLogger, logDestination } from './platform/logger.ts';
import type { RunningService } from './app/start-service.ts';
import type { Database } from './db/database.ts';
import { DatabaseLockedError, openPglite } from './db/pglite.ts';
import { privateRedisIfNeeded, RedisInUseError, RedisMissingError, type PrivateRedis } from './app/private-redis.ts';

// `--role worker` (repeatable, or comma-separated) overrides ROLES.
function rolesFromArgs(args: string[]): string | undefined {
  const { values } = parseArgs({ args, options: { role: { type: 'string', multiple: true } } });
  return values.role?.join(',');
}

async function main() {
  const env = { ...process.env };
  let roles;
  try {
    roles = rolesFromArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${(e as Error).message}\nUsage: npm start -- [--role ${ALL_ROLES.join('|')} ...]`);
    process.exit(2);
  }
  if (roles) env.ROLES = roles;
  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  // read by V8 at every full GC, so it applies from the first one (see HEAP_GROWING_PERCENT)
  if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  // PGlite's WebAssembly with V8's baseline compiler only: optimising its hot functions cost a start
  // about 1 s of CPU and the process 40-50 MB for good, and bought its queries nothing measurable
  // (docs/operations.md, "The embedded default, measured"). Read when the module is compiled.
  if (!config.databaseUrl) v8.setFlagsFromString('--liftoff-only');
  const log = createLogger(config.logLevel, await logDestination(), { secrets: [config.adminToken, config.metricsToken] });
  log.info({ roles: config.roles as Role[] }, 'starting invoice-intake');

  // Signals are handled from the start: one that arrives during start-up stops the service as
  // soon as it is up, instead of killing it halfway (e.g. with a database lock held).
  let service: Promise<RunningService | undefined> | undefined;
  let redis: PrivateRedis | undefined;
  let embedded: Database | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + config.shutdownGraceMs;
    log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    // the stop itself cuts work short at the deadline; this only guards against a hang
    const force = setTimeout(() => {
      log.error('grace period over and still not stopped; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 5000);
    force.unref();
    const running = await service;
    await running?.stop(deadline);
    await embedded?.close();
    await redis?.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  // At once: the private Redis starting, the embedded database opening (PGlite compiles its
  // WebAssembly on V8's background threads and reads its files while the main thread loads the
  // service's modules: about 2,300 files, the other second and more of a start) and those modules.
  const start = async () => {
    const modules = Promise.all([import('./app/start-service.ts'), import('./app/start-up-summary.ts')]);
    const opening = config.databaseUrl ? undefined : openPglite(path.resolve(config.dataDir));
    const starting = privateRedisIfNeeded(config, log);
    // each is awaited below; one failing must not leave the others' rejections unhandled
    for (const p of [modules, opening, starting]) p?.catch(() => {});
    const [redisStarted, db] = await Promise.allSettled([starting, opening]);
    if (redisStarted.status === 'fulfilled') redis = redisStarted.value;
    if (db.status === 'fulfilled') embedded = db.value;
    if (redisStarted.status === 'rejected') throw redisStarted.reason;
    if (db.status === 'rejected') throw db.reason;
    const [{ startService }, { startUpSummary }] = await modules;
    const running = await startService(redis ? { ...config, redisUrl: redis.url } : config, log, { db: embedded });
    const summary = startUpSummary(config, running, redis);
    log.info({ startUp: summary.fields }, summary.text);
    return running;
  };
  service = start().catch(async (err) => {
    await embedded?.close();
    await redis?.stop();
    // what is missing and how to get it, said once (not a stream of refused connections)
    if (err instanceof RedisMissingError) {
      console.error(err.message);
      process.exit(2);
    }
    log.fatal({ err }, 'start-up failed');
    // the one line people need, without digging through JSON logs
    if (err instanceof DatabaseLockedError || err instanceof RedisInUseError) console.error(err.message);
    process.exit(1);
  });
}

void main();
