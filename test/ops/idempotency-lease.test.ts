// An Idempotency-Key claim lives as long as its request: renewed while the request runs (a
// retry gets 409), freed when the process dies mid-request (a retry after the lease runs it).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';

const LEASE_MS = 3000;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let svc: ServiceProcess;
let retrier: TestApp;
const adminToken = `adm_${randomToken(24)}`;

beforeAll(async () => {
  pgdb = await createPgDatabase();
  svc = spawnService(['api'], { DATABASE_URL: pgdb.url, REDIS_PREFIX: `iitest${randomToken(8)}`, ADMIN_TOKEN: adminToken, IDEMPOTENCY_LEASE_MS: String(LEASE_MS) });
  await svc.url();
  // a second API node on the same database, where the client retries
  const db = openPostgres(pgdb.url, 5);
  retrier = await startTestApp({ db, config: { idempotencyLeaseMs: LEASE_MS } });
}, 240_000);
afterAll(async () => {
  svc?.signal('SIGKILL');
  await svc?.exited;
  await retrier?.close();
  await pgdb?.drop();
});

describe('Idempotency-Key lease', () => {
  it('a request killed with its process can be retried once the lease lapsed, and runs once', async () => {
    const base = await svc.url();
    const acct = (await (await fetch(`${base}/admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'lease' }) })).json()) as { liveKey: string };
    const body = { customerCode: 'LEASE-1', name: 'Lease BV' };
    const headers = { authorization: `Bearer ${acct.liveKey}`, 'idempotency-key': 'lease-1' };
    // hold the request inside its handler: the customers table is locked by this transaction
    const blocker = new pg.Client({ connectionString: pgdb.url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('lock table customers in access exclusive mode');
    const stuck = fetch(`${base}/v2/customers`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }).catch(() => 'died');
    const claim = async () => (await retrier.db.query<{ lease_until: Date; created_at: Date }>("select lease_until, created_at from idempotency_keys where key = 'lease-1'"))[0];
    await expect.poll(claim, { timeout: 30_000, interval: 50 }).toBeTruthy();
    const claimedAt = Date.now();

    // alive and still running past its first lease: the claim is renewed, a retry is refused
    await expect.poll(() => Date.now() - claimedAt > LEASE_MS * 1.5, { timeout: 10_000, interval: 100 }).toBe(true);
    const early = await retrier.request('POST', '/v2/customers', { key: acct.liveKey, body, headers: { 'idempotency-key': 'lease-1' } });
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/still in progress; retry in \d+ s/);

    svc.signal('SIGKILL');
    await svc.exited;
    await stuck;
    await blocker.query('rollback');
    await blocker.end();

    // the lease lapses (no more renewals) and the retry runs the request
    let retried: Awaited<ReturnType<TestApp['request']>> | undefined;
    await expect.poll(async () => {
      retried = await retrier.request('POST', '/v2/customers', { key: acct.liveKey, body, headers: { 'idempotency-key': 'lease-1' } });
      return retried.status;
    }, { timeout: LEASE_MS * 4, interval: 250 }).toBe(201);
    const replay = await retrier.request('POST', '/v2/customers', { key: acct.liveKey, body, headers: { 'idempotency-key': 'lease-1' } });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(retried!.body.id);
    const rows = await retrier.db.query("select id from customers where customer_code = 'LEASE-1'");
    expect(rows).toHaveLength(1);
  }, 120_000);
});
