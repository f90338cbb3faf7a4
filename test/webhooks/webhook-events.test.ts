// Every event type arrives once per change, signed (checked with the standardwebhooks package's
// verifier, not our code), at a real HTTP endpoint; retries keep the webhook-id; a rotated secret
// signs beside the new one; test-key events never reach a live endpoint. The service runs with its
// workers (api + worker roles) over real HTTP on PostgreSQL.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from '../intake/intake-harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let t: IntakeApp;
let rx: Receiver;
let acct: Awaited<ReturnType<IntakeApp['account']>>;
const ALL = [
  'import.received',
  'import.waiting',
  'import.attached',
  'import.failed',
  'document.attached',
  'document.deleted',
  'invoice.paid',
  'payment.created',
];

beforeAll(async () => {
  rx = await startReceiver();
  t = await startIntakeApp({
    config: {
      webhookAllowPrivate: true,
      webhookBackoffMs: 50,
      webhookBackoffMaxMs: 200,
      webhookDisableAfterMs: 1500,
      intakeBackoffMs: 100,
      intakeBackoffMaxMs: 200,
    },
  });
  acct = await t.account();
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

async function addWebhook(key: string, path: string, events = ALL) {
  const res = await t.request('POST', '/v2/webhooks', { key, body: { Url: `${rx.url}${path}`, Events: events } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string; url: string; enabled: boolean };
}

const verify = (secret: string, r: { body: string; headers: Record<string, string> }) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': r.headers['webhook-id'],
    'webhook-timestamp': r.headers['webhook-timestamp'],
    'webhook-signature': r.headers['webhook-signature'],
  });

describe('webhook events', () => {
  it('each event type arrives once per change, signed, with the resource as the API shows it', async () => {
    const hook = await addWebhook(acct.testKey, '/all');
    const key = acct.testKey;
    const pdf = await makePdf('webhooks');
    // the API path: document.attached
    const inv1 = await createInvoice(t as any, key);
    expect(
      (
        await t.request('POST', '/v2/documents', {
          key,
          body: { invoice: inv1.id, filename: 'a.pdf', mediatype: 'application/pdf', content: pdf.toString('base64') },
        })
      ).status,
    ).toBe(201);
    // intake: received -> waiting (no invoice yet) -> attached once the invoice exists; document.attached again
    const waiting = await t.request('POST', '/v2/imports', { key, body: { filename: 'WH-LATE.pdf', content: pdf.toString('base64') } });
    await t.waitFor(key, waiting.body.id, (r) => r.status === 'waiting');
    const inv2 = await createInvoice(t as any, key, { invoiceNumber: 'WH-LATE' });
    expect((await t.waitFor(key, waiting.body.id)).status).toBe('attached');
    // refused at once: import.failed
    const bad = await t.request('POST', '/v2/imports', { key, body: { filename: 'x.pdf', content: Buffer.from('not a pdf').toString('base64') } });
    expect(bad.body.status).toBe('failed');
    // a payment of the whole balance: payment.created + invoice.paid
    expect((await t.request('POST', '/v2/payments', { key, body: { invoice: inv1.id, date: '02-02-2026', amount: '480.00' } })).status).toBe(201);
    // paid by update
    expect((await t.request('PATCH', `/v2/invoices/${inv2.id}`, { key, body: { invoiceStatus: 'paid' } })).status).toBeLessThan(300);
    // document.deleted
    expect((await t.request('DELETE', `/v2/documents/${inv2.id}`, { key })).status).toBe(204);

    const expected: Record<string, number> = {
      'document.attached': 2,
      'import.received': 1,
      'import.waiting': 1,
      'import.attached': 1,
      'import.failed': 1,
      'payment.created': 1,
      'invoice.paid': 2,
      'document.deleted': 1,
    };
    await expect.poll(() => Object.fromEntries(ALL.map((type) => [type, rx.of(type, '/all').length])), { timeout: 20_000 }).toEqual(expected);
    for (const r of rx.received.filter((r) => r.path === '/all')) {
      expect(verify(hook.secret, r)).toMatchObject({ id: r.headers['webhook-id'], mode: 'test' });
      expect(r.json.id).toMatch(/^evt_/);
      expect(new Date(r.json.created).toISOString()).toBe(r.json.created);
    }
    // distinct events, one delivery each
    expect(rx.received.filter((r) => r.path === '/all')).toHaveLength(10);
    expect(new Set(rx.received.filter((r) => r.path === '/all').map((r) => r.headers['webhook-id'])).size).toBe(10);
    expect(
      rx
        .of('invoice.paid', '/all')
        .map((r) => r.json.data.id)
        .sort(),
    ).toEqual([inv1.id, inv2.id].sort());
    expect(rx.of('payment.created', '/all')[0].json.data).toMatchObject({ resource: 'payment', amount: '480.00', invoice: { id: inv1.id } });
    expect(rx.of('import.attached', '/all')[0].json.data).toMatchObject({ resource: 'import', id: waiting.body.id, status: 'attached', invoice: inv2.id });
    expect(rx.of('document.deleted', '/all')[0].json.data).toMatchObject({ resource: 'document', invoice: inv2.id });
    expect(rx.of('import.failed', '/all')[0].json.data).toMatchObject({ id: bad.body.id, status: 'failed' });
    await t.request('DELETE', `/v2/webhooks/${hook.id}`, { key });
  });

  it('a file assigned by hand (POST /v2/imports/{id}/attach) sends import.attached and document.attached', async () => {
    const key = acct.testKey;
    await addWebhook(key, '/manual', ['import.attached', 'document.attached']);
    const stray = await t.request('POST', '/v2/imports', {
      key,
      body: { filename: 'scan-no-number.pdf', content: (await makePdf('by hand')).toString('base64') },
    });
    await t.waitFor(key, stray.body.id, (r) => r.status === 'waiting');
    const invoice = await createInvoice(t as any, key, { invoiceNumber: 'WH-HAND-1' });
    const assigned = await t.request('POST', `/v2/imports/${stray.body.id}/attach`, { key, body: { Invoice: 'WH-HAND-1' } });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    await expect.poll(() => rx.of('import.attached', '/manual').length, { timeout: 20_000 }).toBe(1);
    expect(rx.of('import.attached', '/manual')[0].json.data).toMatchObject({ id: stray.body.id, status: 'attached', invoice: invoice.id });
    await expect.poll(() => rx.of('document.attached', '/manual').map((r) => r.json.data.invoice), { timeout: 20_000 }).toEqual([invoice.id]);
  });

  it('a receiver answering 500 then 200 gets the same webhook-id twice; the log shows both attempts', async () => {
    const hook = await addWebhook(acct.testKey, '/retry', ['invoice.paid']);
    rx.script.push(500);
    const inv = await createInvoice(t as any, acct.testKey);
    await t.request('PATCH', `/v2/invoices/${inv.id}`, { key: acct.testKey, body: { invoiceStatus: 'paid' } });
    await expect.poll(() => rx.of('invoice.paid', '/retry').length, { timeout: 15_000 }).toBe(2);
    const [first, second] = rx.of('invoice.paid', '/retry');
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    verify(hook.secret, second);
    await expect.poll(async () => (await t.request('GET', `/v2/webhooks/${hook.id}/deliveries`, { key: acct.testKey })).body.count).toBe(2);
    const log = (await t.request('GET', `/v2/webhooks/${hook.id}/deliveries`, { key: acct.testKey })).body.deliveries;
    expect(log.map((d: any) => [d.statusCode, d.success])).toEqual([
      [200, true],
      [500, false],
    ]);
    expect(log[1]).toMatchObject({ event: first.headers['webhook-id'], type: 'invoice.paid', response: 'refused with 500' });
    expect(log[1].durationMs).toBeGreaterThanOrEqual(0);
    // redeliver: the same id a third time
    const again = await t.request('POST', `/v2/events/${first.headers['webhook-id']}/redeliver`, { key: acct.testKey });
    expect(again.status).toBe(202);
    await expect.poll(() => rx.of('invoice.paid', '/retry').length, { timeout: 10_000 }).toBe(3);
    expect(rx.of('invoice.paid', '/retry')[2].headers['webhook-id']).toBe(first.headers['webhook-id']);
    await t.request('DELETE', `/v2/webhooks/${hook.id}`, { key: acct.testKey });
  });

  it('after a rotation both secrets sign; ping reaches only its endpoint', async () => {
    const hook = await addWebhook(acct.testKey, '/rotate', ['invoice.paid']);
    const other = await addWebhook(acct.testKey, '/other', ['invoice.paid']);
    const rotated = await t.request('POST', `/v2/webhooks/${hook.id}/secret`, { key: acct.testKey });
    expect(rotated.status).toBe(201);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const ping = await t.request('POST', `/v2/webhooks/${hook.id}/ping`, { key: acct.testKey });
    expect(ping.status).toBe(202);
    await expect.poll(() => rx.of('webhook.ping', '/rotate').length, { timeout: 10_000 }).toBe(1);
    const r = rx.of('webhook.ping', '/rotate')[0];
    expect(r.headers['webhook-signature'].split(' ')).toHaveLength(2);
    verify(hook.secret, r);
    verify(rotated.body.secret, r);
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, r)).toThrow();
    expect(r.json.data).toMatchObject({ resource: 'webhook', id: hook.id });
    expect(rx.of('webhook.ping', '/other')).toHaveLength(0);
    // the old secret signs for 24 hours; then (its end moved to now) only the new one does
    const [{ left }] = await t.db.query(`select extract(epoch from previous_secret_until - now())::int as left from webhooks where id = $1`, [hook.id]);
    expect(left).toBeGreaterThan(24 * 3600 - 60);
    expect(left).toBeLessThanOrEqual(24 * 3600);
    await t.db.query(`update webhooks set previous_secret_until = now() where id = $1`, [hook.id]);
    await t.request('POST', `/v2/webhooks/${hook.id}/ping`, { key: acct.testKey });
    await expect.poll(() => rx.of('webhook.ping', '/rotate').length, { timeout: 10_000 }).toBe(2);
    const later = rx.of('webhook.ping', '/rotate')[1];
    expect(later.headers['webhook-signature'].split(' ')).toHaveLength(1);
    verify(rotated.body.secret, later);
    expect(() => verify(hook.secret, later)).toThrow();
    for (const id of [hook.id, other.id]) await t.request('DELETE', `/v2/webhooks/${id}`, { key: acct.testKey });
  });

  it("a test key's events never reach a live endpoint, nor the reverse", async () => {
    const live = await addWebhook(acct.liveKey, '/live', ['invoice.paid']);
    const test = await addWebhook(acct.testKey, '/test', ['invoice.paid']);
    const testInv = await createInvoice(t as any, acct.testKey);
    await t.request('PATCH', `/v2/invoices/${testInv.id}`, { key: acct.testKey, body: { invoiceStatus: 'paid' } });
    const liveInv = await createInvoice(t as any, acct.liveKey);
    await t.request('PATCH', `/v2/invoices/${liveInv.id}`, { key: acct.liveKey, body: { invoiceStatus: 'paid' } });
    await expect.poll(() => rx.of('invoice.paid', '/live').length + rx.of('invoice.paid', '/test').length, { timeout: 10_000 }).toBe(2);
    expect(rx.of('invoice.paid', '/test').map((r) => [r.json.mode, r.json.data.id])).toEqual([['test', testInv.id]]);
    expect(rx.of('invoice.paid', '/live').map((r) => [r.json.mode, r.json.data.id])).toEqual([['live', liveInv.id]]);
    verify(live.secret, rx.of('invoice.paid', '/live')[0]);
    verify(test.secret, rx.of('invoice.paid', '/test')[0]);
    // and nothing is pending for the live endpoint that could still arrive
    const pending = await t.db.query(
      `select count(*)::int as n from webhook_deliveries where webhook_id = $1 and event_id in (select id from webhook_events where mode = 'test')`,
      [live.id],
    );
    expect(pending[0].n).toBe(0);
  });

  it('an endpoint failing for longer than the disable period is disabled, visibly; enabling clears it', async () => {
    const hook = await addWebhook(acct.testKey, '/down', ['invoice.paid']);
    rx.script.push(...Array(200).fill(503));
    const inv = await createInvoice(t as any, acct.testKey);
    await t.request('PATCH', `/v2/invoices/${inv.id}`, { key: acct.testKey, body: { invoiceStatus: 'paid' } });
    await expect.poll(async () => (await t.request('GET', `/v2/webhooks/${hook.id}`, { key: acct.testKey })).body.enabled, { timeout: 15_000 }).toBe(false);
    const got = (await t.request('GET', `/v2/webhooks/${hook.id}`, { key: acct.testKey })).body;
    expect(got.disabledReason).toMatch(/failed for 2 seconds.*HTTP 503/);
    expect(got.failingSince).not.toBeNull();
    rx.script.length = 0;
    const enabled = await t.request('PATCH', `/v2/webhooks/${hook.id}`, { key: acct.testKey, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('reports deliveries by outcome, the queue depth and the oldest undelivered event on /metrics', async () => {
    const text = await (await fetch(`${t.svc.apiUrl}/metrics`)).text();
    expect(text).toMatch(/webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    expect(text).toMatch(/webhook_deliveries_total\{outcome="retried"\} [1-9]/);
    expect(text).toMatch(/bullmq_queue_jobs\{queue="webhooks",state="waiting"\} \d+/);
    expect(text).toMatch(/webhook_oldest_undelivered_seconds \d/);
  });
});
