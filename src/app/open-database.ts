// The database a container opens when none is given: PostgreSQL at DATABASE_URL, else PGlite in the data directory.
import path from 'node:path';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { openPglite } from '../db/pglite.ts';
import type { Logger } from '../platform/logger.ts';

export async function openDatabase(config: Config, log?: Logger): Promise<Database> {
  if (!config.databaseUrl) return openPglite(path.resolve(config.dataDir));
  // loaded only here: the embedded default does not carry pg (about 0.1 s of a start)
  const { openPostgres } = await import('../db/postgres.ts');
  return openPostgres(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    pooler: config.databasePooler,
    // a restart cuts every pooled connection: one line each, and the next query connects again
    onConnectionError: (err) => log?.warn({ err: err.message, code: (err as { code?: string }).code }, 'database connection lost'),
  });
}
