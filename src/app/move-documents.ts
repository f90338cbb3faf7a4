// `npm run admin -- move-documents --to s3|database|directory [--from <store>] [--restart]`: copies
// the installation's objects from one document store to another (services/document-move.ts),
// with the service running. Unlike the other admin commands it does not go through the admin API:
// it opens the database (DATABASE_URL) and both stores itself, with the service's settings, and
// so is composed here, in app/ (the one layer that builds repositories); the admin command runs
// this file as its own process. Progress goes to stdout; the cursor to a file under DATA_DIR, so
// that a pass cut short resumes.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { DatabaseLockedError, openPglite } from '../db/pglite.ts';
import { openPostgres } from '../db/postgres.ts';
import { ObjectReferenceRepository } from '../repositories/object-reference-repository.ts';
import { DocumentMove, MoveVerificationError, type MoveProgress } from '../services/document-move.ts';
import type { StoreKind } from '../storage/document-store.ts';
import { openDocumentStore } from '../storage/open-document-store.ts';

const MOVE_USAGE = 'Usage: npm run admin -- move-documents --to database|directory|s3 [--from <store>] [--restart]';

const KINDS: StoreKind[] = ['database', 'directory', 's3'];

class MoveUsageError extends Error {}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

function kindOf(value: string | undefined, what: string): StoreKind {
  if (!value || !KINDS.includes(value as StoreKind))
    throw new MoveUsageError(`move-documents ${what} takes database, directory or s3${value ? `, not "${value}"` : ''}.\n\n${MOVE_USAGE}`);
  return value as StoreKind;
}

async function openDatabase(config: Config): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, { poolSize: 10 });
  try {
    return await openPglite(path.resolve(config.dataDir));
  } catch (e) {
    if (e instanceof DatabaseLockedError)
      throw new MoveUsageError(
        'The embedded database is in use by the running service: stop it for the move, or move with DATABASE_URL (PostgreSQL), where the service keeps running.',
      );
    throw e;
  }
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

function progressLine(p: MoveProgress, from: string, to: string, startedMs: number): string {
  const rate = p.seen / Math.max(0.001, (Date.now() - startedMs) / 1000);
  const pct = p.total ? ` of ${p.total} (${Math.min(100, (100 * p.seen) / p.total).toFixed(0)} %)` : '';
  return `${from} -> ${to}: ${p.seen}${pct} looked at, ${p.copied} copied and verified (${mb(p.bytes)}), ${p.present} already there, ${p.missing.length} missing; ${rate.toFixed(0)} a second; cursor ${p.after || '(start)'}`;
}

async function moveDocuments(args: string[], config: Config, out: (s: string) => void): Promise<number> {
  const to = kindOf(option(args, '--to'), '--to');
  const from = option(args, '--from') === undefined ? config.documentStore : kindOf(option(args, '--from'), '--from');
  if (from === to) throw new MoveUsageError(`move-documents: the documents are in ${from} already (--from ${from} --to ${to}).`);
  const problems = [from, to].flatMap((k) =>
    k === 'directory' && !config.documentStoreDir
      ? ['the directory store needs DOCUMENT_STORE_DIR']
      : k === 's3' && !config.s3Bucket
        ? ['the s3 store needs S3_BUCKET (and S3_ENDPOINT, S3_REGION, ... as the service will have them)']
        : [],
  );
  if (problems.length) throw new MoveUsageError(`move-documents cannot open the stores: ${problems.join('; ')}.`);
  const cursorFile = path.join(config.dataDir, `move-documents-${from}-to-${to}.cursor`);
  const resumeFrom = args.includes('--restart') ? '' : fs.existsSync(cursorFile) ? fs.readFileSync(cursorFile, 'utf8').trim() : '';
  const db = await openDatabase(config);
  const [source, target] = await Promise.all([openDocumentStore(config, db, from), openDocumentStore(config, db, to)]).catch(async (e) => {
    await db.close();
    throw e;
  });
  const objects = new ObjectReferenceRepository();
  const rows = { referenced: (after: string, limit: number) => objects.referenced(db, after, limit), countReferenced: () => objects.countReferenced(db) };
  const started = Date.now();
  let lastLine = 0;
  try {
    out(`Moving documents from ${from} to ${to}${resumeFrom ? `, resuming after ${resumeFrom} (${cursorFile})` : ''}.`);
    const done = await new DocumentMove(rows, source, target, { maxBytes: Number.MAX_SAFE_INTEGER }).run(resumeFrom, (p) => {
      fs.mkdirSync(config.dataDir, { recursive: true });
      fs.writeFileSync(cursorFile, p.after);
      if (Date.now() - lastLine >= 1000) out(progressLine(p, from, to, started)), (lastLine = Date.now());
    });
    out(progressLine(done, from, to, started));
    if (done.missing.length) {
      out(
        `${done.missing.length} objects that rows point at are in neither store:\n  ${done.missing.slice(0, 20).join('\n  ')}${done.missing.length > 20 ? '\n  ...' : ''}`,
      );
      return 1;
    }
    fs.rmSync(cursorFile, { force: true }); // a finished pass: the next run is a new pass from the start
    const next =
      from === config.documentStore
        ? `Next (docs/operations.md): restart the service with DOCUMENT_STORE=${to} DOCUMENT_STORE_FALLBACK=${from}, then run this again with --from ${from} --to ${to} for what arrived meanwhile.`
        : `Next: restart the service without DOCUMENT_STORE_FALLBACK; the ${from} store's copies can then be removed (docs/operations.md).`;
    out(`Done: every object rows point at is in ${to}. ${next}`);
    return 0;
  } catch (e) {
    if (e instanceof MoveVerificationError) {
      out(`Stopped: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await Promise.all([source.close?.(), target.close?.()]);
    await db.close();
  }
}

async function main(): Promise<void> {
  try {
    process.exitCode = await moveDocuments(process.argv.slice(2), loadConfig(process.env, {}, { serving: false }), (s) => console.log(s));
  } catch (e) {
    if (!(e instanceof MoveUsageError || e instanceof ConfigError)) throw e;
    console.error(e.message);
    process.exitCode = 2;
  }
}

void main();
