// Idempotency-Key as one transaction with its effects: an API process is SIGKILLed in the middle
// of a keyed POST /v2/imports at each point of its life (IDEMPOTENCY_PAUSE_AT: before the claim,
// after the claim, after the effect, after the commit), and the client retries with the same key
// on another API node. Each key ends with one intake record, attached once; a retry after the
// commit is the stored response replayed, any other runs on a clean slate.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { IDEMPOTENCY_PAUSE_POINTS } from '../../src/services/idempotency-service.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { pollFor } from '../../testkit/wait.ts';
import { makePdf } from '../helpers/fixtures.ts';
import pg from 'pg';

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let redis: PrivateRedis;
let sql: pg.Pool;
const started: ServiceProcess[] = [];
const paused = new Map<string, ServiceProcess>();
let retrier: string;
let key: string;
let customer: string;
const adminToken = `adm_${randomToken(24)}`;

const call = async (base: string, method: string, url: string, body: unknown, headers: Record<string, string>) => {
  const res = await httpClient(base)(method, url, { body, headers });
  return { status: res.status, replayed: res.headers['idempotent-replayed'] ?? null, body: res.raw.length ? res.body : undefined };
};

beforeAll(async () => {
  [pgdb, redis] = await Promise.all([createPgDatabase(), startPrivateRedis()]);
  sql = new pg.Pool({ connectionString: pgdb.url, max: 2 });
  const env = {
    DATABASE_URL: pgdb.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    INTAKE_BACKOFF_MS: '200',
    INTAKE_BACKOFF_MAX_MS: '1000',
  };
  // migrate once before the nodes start side by side
  const first = spawnService(['api'], env);
  started.push(first);
  retrier = await first.url();
  for (const point of IDEMPOTENCY_PAUSE_POINTS) {
    const p = spawnService(['api'], { ...env, IDEMPOTENCY_PAUSE_AT: point });
    started.push(p);
    paused.set(point, p);
  }
  const worker = spawnService(['worker'], env);
  started.push(worker);
  await Promise.all(started.map((p) => p.url()));
  const acct = await call(retrier, 'POST', '/admin/accounts', { name: 'crash' }, { authorization: `Bearer ${adminToken}` });
  key = acct.body.liveKey;
  customer = (await call(retrier, 'POST', '/v2/customers', { customerCode: 'CRASH', name: 'Crash BV' }, { authorization: `Bearer ${key}` })).body.id;
}, 240_000);

afterAll(async () => {
  for (const p of started) p.signal('SIGKILL');
  await Promise.all(started.map((p) => p.exited));
  await sql?.end();
  await redis?.stop();
  await pgdb?.drop();
});

describe('Idempotency-Key across a SIGKILL', () => {
  it.each(IDEMPOTENCY_PAUSE_POINTS)(
    'killed %s: the retry with the same key leaves one record, attached once',
    async (point) => {
      const number = `CR-${point}`;
      const invoice = await call(
        retrier,
        'POST',
        '/v2/invoices',
        { customer, invoiceNumber: number, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
        { authorization: `Bearer ${key}` },
      );
      expect(invoice.status).toBe(201);
      const pdf = await makePdf(`Invoice ${number}`);
      const body = { Filename: `${number}.pdf`, Content: pdf.toString('base64') };
      const headers = { authorization: `Bearer ${key}`, 'idempotency-key': `key-${point}` };

      const victim = paused.get(point)!;
      const stuck = call(await victim.url(), 'POST', '/v2/imports', body, headers).catch(() => 'died');
      await victim.waitForLog((l) => l.msg === 'idempotency paused (IDEMPOTENCY_PAUSE_AT)' && l.point === point, 30_000);
      victim.signal('SIGKILL');
      await victim.exited;
      expect(await stuck).toBe('died');

      // the client retries on another node: 409 while the database has not yet seen the dead
      // connection (its transaction still holds the key), then the outcome
      const retried = await pollFor(
        () => call(retrier, 'POST', '/v2/imports', body, headers),
        (r) => r.status !== 409,
        { ms: 30_000, everyMs: 200 },
      );
      expect(retried.status, JSON.stringify(retried.body)).toBe(202);
      expect(retried.replayed).toBe(point === 'after-commit' ? 'true' : null);
      const again = await call(retrier, 'POST', '/v2/imports', body, headers);
      expect(again).toMatchObject({ status: 202, replayed: 'true', body: { id: retried.body.id } });

      const records = await pollFor(
        async () =>
          (
            await sql.query<{ id: string; status: string }>(
              'select t.id, t.status from intake_records t join intake_staging s on s.id = t.id where s.filename = $1',
              [`${number}.pdf`],
            )
          ).rows,
        (rows) => rows.length !== 1 || rows[0].status === 'attached',
        { ms: 30_000, everyMs: 200 },
      );
      expect(records).toEqual([{ id: retried.body.id, status: 'attached' }]);
      const keys = await sql.query('select status_code from idempotency_keys where key = $1', [`key-${point}`]);
      expect(keys.rows).toEqual([{ status_code: 202 }]);
      const docs = await sql.query('select sha256 from documents where invoice_id = $1', [invoice.body.id]);
      expect(docs.rows).toEqual([{ sha256: createHash('sha256').update(pdf).digest('hex') }]);
    },
    120_000,
  );
});
