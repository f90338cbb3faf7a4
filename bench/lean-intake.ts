// The lean "bare durable intake" that bench:ftp and bench:intake measure the service against: it
// keeps the promise the service's answer keeps (the bytes committed in PostgreSQL and a BullMQ job
// queued before the sender hears "received") with nothing else: no auth, no names, no matching,
// no outbox. Its worker reads the row back, checks `%PDF-` and marks it done. Each reference
// server (ftp-bare-server.ts, lean-http-server.ts) runs one in its own process.
import { spawn, type ChildProcess } from 'node:child_process';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { ROOT } from '../testkit/paths.ts';

export const LEAN_TABLE = 'lean_intake';
const QUEUE = 'lean-intake';

export interface LeanIntake {
  /** One INSERT (committed on return) and one job, as the service's staging and enqueue. */
  stage(filename: string, bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

/** BullMQ's connection options from a redis:// URL. */
function redisOptions(url: string) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };
}

/**
 * Creates the table (bytes out of line and uncompressed, as intake_staging stores them), the queue
 * and `concurrency` workers (the service's INTAKE_CONCURRENCY default), with the service's job options.
 */
export async function startLeanIntake(o: {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  poolSize?: number;
  concurrency?: number;
}): Promise<LeanIntake> {
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: o.poolSize ?? 20 });
  await pool.query(`create table if not exists ${LEAN_TABLE} (id bigserial primary key, filename text not null, content bytea not null,
    status text not null default 'received', received_at timestamptz not null default clock_timestamp(), done_at timestamptz);
    alter table ${LEAN_TABLE} alter column content set storage external`);
  const connection = redisOptions(o.redisUrl);
  const queue = new Queue(QUEUE, {
    connection,
    prefix: o.prefix,
    defaultJobOptions: { attempts: 5, removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 86_400 } },
  });
  const worker = new Worker<{ id: string }>(
    QUEUE,
    async (job) => {
      const { rows } = await pool.query({ name: 'lean_read', text: `select content from ${LEAN_TABLE} where id = $1`, values: [job.data.id] });
      const content = rows[0]?.content as Buffer | undefined;
      const status = content && content.subarray(0, 5).toString('latin1') === '%PDF-' ? 'done' : 'failed';
      await pool.query({
        name: 'lean_done',
        text: `update ${LEAN_TABLE} set status = $2, done_at = clock_timestamp() where id = $1`,
        values: [job.data.id, status],
      });
    },
    { connection, prefix: o.prefix, concurrency: o.concurrency ?? 8 },
  );
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  return {
    async stage(filename, bytes) {
      const { rows } = await pool.query({
        name: 'lean_stage',
        text: `insert into ${LEAN_TABLE} (filename, content) values ($1, $2) returning id`,
        values: [filename, bytes],
      });
      const id = String(rows[0].id);
      await queue.add('check', { id }, { jobId: `lean-${id}` });
    },
    async close() {
      await worker.close();
      await queue.close();
      await pool.end();
    },
  };
}

/** What the bench reads of the reference's rows named `names`: how many are not done yet, and when the last was done (ms). */
export async function leanProgress(sql: { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> }, names: string[]) {
  const [r] = (
    await sql.query(
      `select count(*) filter (where status = 'received')::int as pending, count(*) filter (where status = 'failed')::int as failed,
       count(*)::int as staged, extract(epoch from max(done_at)) * 1000 as last_done from ${LEAN_TABLE} where filename = any($1)`,
      [names],
    )
  ).rows;
  return { pending: r.pending as number, failed: r.failed as number, staged: r.staged as number, lastDone: Number(r.last_done) };
}

/** Starts a reference server (`script` under bench/, printing its port first) in its own process. */
export function startLeanServer(script: string, args: string[], nodeArgs: string[] = []): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', `bench/${script}`, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ proc, port: Number(out.slice(0, out.indexOf('\n'))) });
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** The median of the rounds, the figure each side is compared by. */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
