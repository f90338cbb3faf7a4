// Crashes between a change and its delivery: the worker process (started the way `npm start`
// starts it) killed with SIGKILL while it delivers, and an event committed by a process that died
// before queuing it. Both still arrive. This process runs the api role only; workers are children.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { testConfig } from '../helpers/test-app.ts';
import { dropQueueKeys } from '../intake/intake-harness.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let config: Config;
let svc: RunningService;
let rx: Receiver;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  rx = await startReceiver();
  pgdb = await createPgDatabase();
  config = testConfig({ roles: ['api'], databaseUrl: pgdb.url, webhookAllowPrivate: true });
  svc = await startService(config, createLogger(config.logLevel));
});
afterAll(async () => {
  for (const c of children) c.signal('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await svc?.stop();
  await dropQueueKeys(config);
  await pgdb?.drop();
  await rx?.close();
});

function worker(): ServiceProcess {
  const p = spawnService(['worker'], {
    DATABASE_URL: pgdb.url,
    REDIS_URL: config.redisUrl,
    REDIS_PREFIX: config.redisPrefix,
    DATA_DIR: config.dataDir,
    LOG_LEVEL: 'debug',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
    WEBHOOK_REQUEUE_AFTER_MS: '1000',
  });
  children.push(p);
  return p;
}

async function setUp() {
  const c = svc.container;
  const acct = await c.accounts.create(`crash-${Date.now()}`);
  const scope = { accountId: acct.id, mode: 'live' as const };
  const { webhook, secret } = await c.webhooks.create(scope, { url: `${rx.url}/${acct.id}`, events: ['invoice.paid'] });
  const { customer } = await c.customers.create(scope, { customerCode: 'C-1', name: 'Crash BV' }, false);
  const invoice = await c.invoices.create(scope, {
    customer: customer.id,
    invoiceNumber: 'CR-1',
    invoiceDate: '01-02-2026',
    invoiceDuedate: '01-03-2026',
    invoiceTotal: '1.00',
  });
  return { c, scope, webhook, secret, invoice, path: `/${acct.id}` };
}

const state = async (eventId: string) => (await svc.container.db.query(`select state from webhook_deliveries where event_id = $1`, [eventId]))[0]?.state;

describe('webhook crash', () => {
  it('a worker killed with SIGKILL while delivering: another delivers the same event', async () => {
    const { c, scope, secret, invoice, path } = await setUp();
    rx.hold = true; // the first delivery gets no answer: the worker is mid-delivery when it dies
    const first = worker();
    await first.waitForLog((l) => l.msg === 'webhook workers started');
    await c.invoices.update(scope, invoice.id, { invoiceStatus: 'paid' });
    await expect.poll(() => rx.of('invoice.paid', path).length, { timeout: 30_000 }).toBe(1);
    first.signal('SIGKILL');
    expect(await first.exited).toBeNull();
    rx.release();
    const eventId = rx.of('invoice.paid', path)[0].headers['webhook-id'];
    expect(await state(eventId)).toBe('pending');

    worker(); // takes the job over once the dead worker's lock expires
    await expect.poll(() => rx.of('invoice.paid', path).length, { timeout: 60_000 }).toBe(2);
    const again = rx.of('invoice.paid', path)[1];
    expect(again.headers['webhook-id']).toBe(eventId);
    expect(new Webhook(secret).verify(again.body, again.headers)).toMatchObject({ type: 'invoice.paid', data: { id: invoice.id } });
    await expect.poll(() => state(eventId)).toBe('delivered');
    // the workers logged each delivery (debug) and never the secret that signed it; the line is
    // written after the state's commit, so it may reach this process's pipe a moment later
    await expect.poll(() => children.some((c) => c.logs.some((l) => l.msg === 'webhook delivered' && l.eventId === eventId)), { timeout: 5000 }).toBe(true);
    expect(JSON.stringify(children.map((c) => c.logs))).not.toContain(secret.slice('whsec_'.length));
  }, 120_000);

  it('an event committed by a process that died before queuing it is delivered by the sweep', async () => {
    const { c, scope, secret, invoice, path } = await setUp();
    // written in its transaction like every event, but nobody is told: as if the process died right after the commit
    const paid = await c.invoices.get(scope, invoice.id);
    const eventId = await c.db.transaction((tx) => c.outbox.write(tx, scope, 'invoice.paid', { resource: 'invoice', invoice: paid }));
    await expect.poll(() => rx.of('invoice.paid', path).length, { timeout: 30_000 }).toBe(1);
    const r = rx.of('invoice.paid', path)[0];
    expect(r.headers['webhook-id']).toBe(eventId);
    new Webhook(secret).verify(r.body, r.headers);
  }, 60_000);
});
