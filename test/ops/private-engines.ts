// The installation of the engine fault tests that need engines of their own: a private PostgreSQL
// cluster (its CPU time and restarts are the test's alone) and a private Redis, the roles split
// over processes on them (engine-flow.ts), and the test's own small pool on the database.
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../../testkit/private-postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { startFlow, type Flow } from './engine-flow.ts';

export interface PrivateEngines {
  server: PrivatePostgres;
  redis: PrivateRedis;
  flow: Flow;
  sql: pg.Pool;
}

/** Started before the file's tests and stopped after them; its fields are set once they have started. */
export function flowOnPrivateEngines(): PrivateEngines {
  const e = {} as PrivateEngines;
  beforeAll(async () => {
    [e.server, e.redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    e.sql = new pg.Pool({ connectionString: e.server.url, max: 2 });
    e.sql.on('error', () => {}); // the test's own pool sees a restart too
    e.flow = await startFlow({ env: { DATABASE_URL: e.server.url, REDIS_URL: e.redis.url } });
  }, 240_000);
  afterAll(async () => {
    await e.flow?.stop();
    await e.sql?.end();
    await e.redis?.stop();
    await e.server?.destroy();
  });
  return e;
}
