import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies the versioned SQL files in migrations/ that have not run yet, in name order, all in one
 * transaction under an advisory lock so that several nodes starting together migrate once.
 * `upTo` (a file name) stops there: the build's shipped database and its tests.
 */
export async function migrate(db: Database, upTo?: string): Promise<string[]> {
  const files = migrationFiles().filter((f) => !upTo || f <= upTo);
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(4242001)');
    await tx.query('create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await tx.query<{ version: string }>('select version from schema_migrations')).map((r) => r.version));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(fs.readFileSync(path.join(dir, file), 'utf8'));
      await tx.query('insert into schema_migrations (version) values ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}

/** The migration files, in the order they apply. */
export const migrationFiles = () =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
