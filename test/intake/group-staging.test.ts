// Group commit of staging (src/intake/staging-group.ts): many files received at once are staged in
// fewer statements than files, each with its record, history line, import.* event and job as if
// staged alone; a group whose statement fails is staged again file by file; a keyed request keeps
// its own transaction. The service process killed while groups are being staged loses no file
// whose upload it answered.
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { queuePrefix } from '../../src/queue/job-definition.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService } from '../../testkit/service-process.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

const FILES = 40;
let app: IntakeApp;

/** count and sum of intake_staging_batch_size in this process's registry */
async function batches(): Promise<{ count: number; sum: number }> {
  const text = await app.svc.container.metrics.text();
  const read = (name: string) =>
    Number(
      /^(\S+) (\S+)$/m.exec(
        text
          .split('\n')
          .filter((l) => l.startsWith(`${name} `))
          .join('\n'),
      )?.[2] ?? 0,
    );
  return { count: read('intake_staging_batch_size_count'), sum: read('intake_staging_batch_size_sum') };
}

beforeAll(async () => {
  app = await startIntakeApp({ config: { webhookAllowPrivate: true } });
}, 120_000);
afterAll(() => app?.close());

describe('group commit of staging', () => {
  it(`${FILES} parallel POST /v2/imports: all staged and queued, in fewer statements than files, each with its history line and event`, async () => {
    const a = await app.account();
    const c = app.svc.container;
    await c.webhooks.create(a.live, { url: 'http://127.0.0.1:9/hook', events: ['import.received', 'import.failed'] });
    const pdf = await makePdf('group', 20_000);
    const before = await batches();
    const answers = await Promise.all(
      Array.from({ length: FILES }, (_, i) => {
        // one of them is no PDF: refused at once, in the same group as the others
        const bytes = i === 7 ? Buffer.from('not a pdf at all') : Buffer.concat([pdf, Buffer.from(`\n% ${i}\n`)]);
        return app.request('POST', '/v2/imports', { key: a.liveKey, body: { Filename: `GS-${i}.pdf`, Content: bytes.toString('base64') } });
      }),
    );
    expect(answers.map((r) => r.status).filter((s) => s !== 202 && s !== 201)).toEqual([]);
    const ids = answers.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(FILES);

    const after = await batches();
    expect(after.sum - before.sum).toBe(FILES);
    expect(after.count - before.count).toBeLessThan(FILES); // grouped: fewer statements than files

    const records = await c.db.query<{ id: string; status: string; history: string[]; events: number; has_content: boolean }>(
      `select r.id, r.status, (select array_agg(h.status order by h.at) from intake_history h where h.intake_id = r.id) as history,
              (select count(*)::int from webhook_events e where e.body::jsonb -> 'data' ->> 'id' = r.id and e.type = case when r.id = $2 then 'import.failed' else 'import.received' end) as events, s.content_sha256 is not null as has_content
       from intake_records r join intake_staging s on s.id = r.id where r.id = any($1)`,
      [ids, ids[7]],
    );
    expect(records).toHaveLength(FILES);
    const refused = records.find((r) => r.id === ids[7])!;
    expect(refused.history[0]).toBe('failed');
    for (const r of records) {
      expect(r.history[0]).toBe(r.id === ids[7] ? 'failed' : 'received'); // the first line, written with the insert
      expect(r.events).toBe(1); // its first status's import.* event, once
    }
    // every accepted file has its job (the worker may already have finished it)
    for (const id of ids.filter((id) => id !== ids[7])) expect(await c.jobs.bullQueue('intake').getJob(id)).toBeTruthy();
  }, 120_000);

  it('a group whose statement fails is staged file by file: only the bad file fails', async () => {
    const a = await app.account();
    const c = app.svc.container;
    const pdf = await makePdf('fallback', 5_000);
    // each file its own bytes: the database store writes a file's object in the statement that stages it
    const bytesOf = (name: string) => Buffer.concat([pdf, Buffer.from(`\n% ${encodeURIComponent(name)}\n`)]);
    const file = (name: string) => ({ scope: a.live, channel: 'ftp' as const, sender: 'gs@127.0.0.1', filename: name, bytes: bytesOf(name) });
    await c.intake.receive(file('FB-warm.pdf')); // the account's state remembered: the five below arrive together
    const before = await batches();
    // the first goes alone; the rest wait for it and form one group, which the NUL byte (refused by
    // PostgreSQL's text type) makes fail as a whole
    const results = await Promise.allSettled(
      [file('FB-0.pdf'), file('FB-1.pdf'), file('FB-\u0000.pdf'), file('FB-3.pdf'), file('FB-4.pdf')].map((f) => c.intake.receive(f)),
    );
    const after = await batches();
    expect(after.count - before.count).toBe(2); // one group after the first (then one by one)
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const names = await c.db.query<{ filename: string }>(`select s.filename from intake_staging s where s.account_id = $1`, [a.id]);
    expect(names.map((n) => n.filename).sort()).toEqual(['FB-0.pdf', 'FB-1.pdf', 'FB-3.pdf', 'FB-4.pdf', 'FB-warm.pdf']);
    // the objects came with their rows, in the same statements: the refused file left no object behind
    const objects = async (name: string) =>
      (
        await c.db.query<{ size: number }>('select size from document_objects where sha256 = $1', [createHash('sha256').update(bytesOf(name)).digest('hex')])
      ).map((o) => Number(o.size));
    for (const name of ['FB-0.pdf', 'FB-1.pdf', 'FB-3.pdf', 'FB-4.pdf']) expect(await objects(name)).toEqual([bytesOf(name).length]);
    expect(await objects('FB-\u0000.pdf')).toEqual([]);
  }, 60_000);

  it('the same bytes several times in one group: every file staged, one object', async () => {
    const a = await app.account();
    const c = app.svc.container;
    const pdf = await makePdf('same bytes', 8_000);
    const file = (name: string) => ({ scope: a.live, channel: 'ftp' as const, sender: 'gs@127.0.0.1', filename: name, bytes: pdf });
    await c.intake.receive(file('SB-warm.pdf'));
    const before = await batches();
    const records = await Promise.all(['SB-0.pdf', 'SB-1.pdf', 'SB-2.pdf', 'SB-3.pdf'].map((n) => c.intake.receive(file(n))));
    expect((await batches()).count - before.count).toBeLessThan(4); // some of them shared a statement
    expect(records.map((r) => r.status)).toEqual(Array(4).fill('received'));
    const sha = createHash('sha256').update(pdf).digest('hex');
    const pointing = await c.db.query<{ n: number }>('select count(*)::int as n from intake_staging where account_id = $1 and content_sha256 = $2', [
      a.id,
      sha,
    ]);
    expect(pointing[0].n).toBe(5);
    expect((await c.db.query('select 1 from document_objects where sha256 = $1', [sha])).length).toBe(1);
  }, 60_000);

  it('keyed requests (a unit of work each) are staged alone, and all of them', async () => {
    const a = await app.account();
    const pdf = await makePdf('keyed', 5_000);
    const before = await batches();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.request('POST', '/v2/imports', {
          key: a.liveKey,
          headers: { 'idempotency-key': `gs-${i}` },
          body: { Filename: `K-${i}.pdf`, Content: pdf.toString('base64') },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(202));
    const after = await batches();
    expect(after.count - before.count).toBe(0); // never through the group
    const ids = answers.map((r) => r.body.id);
    for (const id of ids) expect(await app.svc.container.jobs.bullQueue('intake').getJob(id)).toBeTruthy();
  }, 60_000);
});

describe('group commit across a SIGKILL', () => {
  it('an API process killed while groups are staged: every answered upload is staged with its job', async () => {
    const [pgdb, redis] = await Promise.all([createPgDatabase(), startPrivateRedis()]);
    const adminToken = `adm_${randomToken(24)}`;
    const env = { DATABASE_URL: pgdb.url, REDIS_URL: redis.url, REDIS_PREFIX: `iitest${randomToken(6)}`, ADMIN_TOKEN: adminToken, RATE_LIMIT_MAX: '1000000' };
    const api = spawnService(['api'], env);
    try {
      const base = await api.url();
      const req = httpClient(base);
      const acct = await req('POST', '/admin/accounts', { headers: { authorization: `Bearer ${adminToken}` }, body: { name: 'gs-crash' } });
      const key = acct.body.liveKey as string;
      const pdf = await makePdf('killed', 50_000);
      const answered: string[] = [];
      let killed = false;
      const upload = async (i: number) => {
        const res = await req('POST', '/v2/imports', {
          key,
          body: { Filename: `KS-${i}.pdf`, Content: Buffer.concat([pdf, Buffer.from(`\n% ${i}\n`)]).toString('base64') },
        }).catch(() => undefined);
        if (res?.status === 202) answered.push(res.body.id);
        if (answered.length >= 60 && !killed) (killed = true), api.signal('SIGKILL');
      };
      // 40 at a time until the kill (then the rest fail to connect)
      let next = 0;
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          while (next < 400 && !killed) await upload(next++);
        }),
      );
      await api.exited;
      expect(killed).toBe(true);
      expect(answered.length).toBeGreaterThanOrEqual(60);

      const sql = new pg.Client({ connectionString: pgdb.url });
      await sql.connect();
      const queue = new Queue('intake', { connection: { url: redis.url }, prefix: queuePrefix({ redisPrefix: env.REDIS_PREFIX }) });
      try {
        const rows = (
          await sql.query(
            `select r.id from intake_records r join intake_staging s on s.id = r.id where r.id = any($1) and r.status = 'received' and s.content_sha256 is not null`,
            [answered],
          )
        ).rows;
        expect(rows.map((r) => r.id).sort()).toEqual([...answered].sort());
        const missingJobs = [];
        for (const id of answered) if (!(await queue.getJob(id))) missingJobs.push(id);
        expect(missingJobs).toEqual([]);
      } finally {
        await queue.close();
        await sql.end();
      }
    } finally {
      api.signal('SIGKILL');
      await api.exited;
      await pgdb.drop();
      await redis.stop();
    }
  }, 240_000);
});
