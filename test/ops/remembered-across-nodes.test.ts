// What each node remembers so that every change or received file does not ask the database
// (src/services/announced-memo.ts): which event types an account's webhooks want, whether an
// account is disabled, and who may send its mail. A change made on one node counts on every node
// at once: it is announced over Redis pub/sub as key rotations are. Webhook events here are payment.created, counted in the
// outbox table (no workers needed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestApp, type TestAccount } from '../helpers/test-app.ts';

let a: TestApp; // node A
let b: TestApp; // node B: same database, same Redis prefix
let uncached: TestApp; // KEY_CACHE_MS=0: nothing remembered

beforeAll(async () => {
  const prefix = `iitest${randomToken(8)}`;
  const config = { redisPrefix: prefix, keyCacheMs: 60_000, webhookAllowPrivate: true };
  a = await startTestApp({ config });
  b = await a.anotherNode({ config });
  uncached = await a.anotherNode({ config: { ...config, keyCacheMs: 0 } });
});
afterAll(async () => {
  await uncached?.close();
  await b?.close();
  await a?.close();
});

const hookUrl = 'http://127.0.0.1:9/hook';
/** A payment on `node`; resolves to how many payment.created events the account has in all. */
async function pay(node: TestApp, acct: TestAccount): Promise<number> {
  const invoice = await createInvoice(node, acct.liveKey);
  const res = await node.request('POST', '/v2/payments', { key: acct.liveKey, body: { invoice: invoice.id, date: '02-02-2026', amount: '1.00' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const rows = await node.db.query<{ n: number }>(`select count(*)::int as n from webhook_events where account_id = $1 and type = 'payment.created'`, [
    acct.id,
  ]);
  return Number(rows[0].n);
}
const addHook = async (node: TestApp, acct: TestAccount, events = ['payment.created']) => {
  const res = await node.request('POST', '/v2/webhooks', { key: acct.liveKey, body: { url: hookUrl, events } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};
const addHookBehindTheServicesBack = (t: TestApp, acct: TestAccount) =>
  t.db.query(`insert into webhooks (id, account_id, mode, url, events, secret) values ($1, $2, 'live', $3, '{payment.created}', 'whsec_x')`, [
    `whk_${randomToken(10)}`,
    acct.id,
    hookUrl,
  ]);

describe('webhook subscriptions per node', () => {
  it('are really remembered: an endpoint added in the database alone is not seen by a node that looked already', async () => {
    const acct = await a.createAccount();
    expect(await pay(b, acct)).toBe(0); // B now knows: nobody listens
    await addHookBehindTheServicesBack(a, acct);
    expect(await pay(b, acct)).toBe(0); // B answered from memory
    expect(await pay(uncached, acct)).toBe(1); // no memory: the database decides
    expect(await pay(a, acct)).toBe(2); // A never looked before
  });

  it('an endpoint created on node A counts on node B at once, though B remembered none', async () => {
    const acct = await a.createAccount();
    expect(await pay(b, acct)).toBe(0);
    const hook = await addHook(a, acct);
    expect(await pay(b, acct)).toBe(1);
    // switched off on B: A stops at once; on again: both record
    expect((await b.request('PATCH', `/v2/webhooks/${hook}`, { key: acct.liveKey, body: { enabled: false } })).status).toBe(200);
    expect(await pay(a, acct)).toBe(1);
    expect((await a.request('PATCH', `/v2/webhooks/${hook}`, { key: acct.liveKey, body: { enabled: true } })).status).toBe(200);
    expect(await pay(b, acct)).toBe(2);
    // its events changed to others on A, then deleted on B
    expect((await a.request('PATCH', `/v2/webhooks/${hook}`, { key: acct.liveKey, body: { events: ['invoice.paid'] } })).status).toBe(200);
    expect(await pay(b, acct)).toBe(2);
    const again = await addHook(b, acct);
    expect(await pay(a, acct)).toBe(3);
    expect((await b.request('DELETE', `/v2/webhooks/${again}`, { key: acct.liveKey })).status).toBe(204);
    expect(await pay(a, acct)).toBe(3);
  });

  it('the other mode and other accounts are not touched by a change', async () => {
    const [one, two] = [await a.createAccount(), await a.createAccount()];
    await addHook(a, one);
    expect(await pay(b, one)).toBe(1);
    expect(await pay(b, two)).toBe(0);
  });

  it('with Redis unreachable nothing is remembered, and a change of endpoints is refused without changing anything', async () => {
    const down = await a.anotherNode({ config: { redisUrl: 'redis://127.0.0.1:1', keyCacheMs: 60_000, webhookAllowPrivate: true } });
    try {
      const acct = await down.createAccount();
      expect(await pay(down, acct)).toBe(0);
      const refused = await down.request('POST', '/v2/webhooks', { key: acct.liveKey, body: { url: hookUrl, events: ['payment.created'] } });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatch(/webhook was not changed/);
      expect((await down.db.query(`select 1 from webhooks where account_id = $1`, [acct.id])).length).toBe(0);
      await addHookBehindTheServicesBack(down, acct);
      expect(await pay(down, acct)).toBe(1); // straight from the database
    } finally {
      await down.close();
    }
  });

  it('with nothing remembered (KEY_CACHE_MS=0), changes of endpoints do not need Redis', async () => {
    const down = await a.anotherNode({ config: { redisUrl: 'redis://127.0.0.1:1', keyCacheMs: 0, webhookAllowPrivate: true } });
    try {
      const acct = await down.createAccount();
      await addHook(down, acct);
      expect(await pay(down, acct)).toBe(1);
    } finally {
      await down.close();
    }
  });
});

describe('disabled accounts per node', () => {
  const receive = async (node: TestApp, acct: TestAccount) =>
    node.c.intake.receive({
      scope: { accountId: acct.id, mode: 'live' },
      channel: 'mail',
      sender: 'a@example.com',
      filename: `OFF-${randomToken(6)}.pdf`,
      bytes: await makePdf('off'),
    });
  const setDisabled = (node: TestApp, acct: TestAccount, disabled: boolean) =>
    node.request('PATCH', `/admin/accounts/${acct.id}`, { headers: { authorization: `Bearer ${node.adminToken}` }, body: { disabled } });

  it('are really remembered: disabled in the database alone, a node that looked still takes files', async () => {
    const acct = await a.createAccount();
    expect((await receive(b, acct)).status).toBe('received');
    await a.db.query('update accounts set disabled_at = now() where id = $1', [acct.id]);
    expect((await receive(b, acct)).status).toBe('received'); // from B's memory
    expect((await receive(uncached, acct)).reason).toMatch(/account is disabled/);
  });

  it('an account disabled on node A refuses files on node B at once, and takes them again once enabled', async () => {
    const acct = await a.createAccount();
    expect((await receive(b, acct)).status).toBe('received');
    expect((await setDisabled(a, acct, true)).status).toBe(200);
    const refused = await receive(b, acct);
    expect(refused).toMatchObject({ status: 'failed', reason: expect.stringMatching(/account is disabled/) });
    expect((await receive(a, acct)).status).toBe('failed'); // A now remembers it disabled
    expect((await setDisabled(b, acct, false)).status).toBe(200);
    expect((await receive(a, acct)).status).toBe('received');
  });
});

describe('sender policies per node', () => {
  const policyOn = (node: TestApp, acct: TestAccount) => node.c.senderPolicies.get({ accountId: acct.id, mode: 'live' });
  const putSenders = (node: TestApp, acct: TestAccount, senders: string[]) =>
    node.request('PUT', '/v2/account/senders', { key: acct.liveKey, body: { policy: 'listed', senders } });

  it('are really remembered: changed in the database alone, a node that looked keeps the old one', async () => {
    const acct = await a.createAccount();
    const before = await policyOn(b, acct);
    await a.db.query(`insert into account_sender_policies (account_id, mode, policy, senders) values ($1, 'live', 'listed', '{@db.example}')`, [acct.id]);
    expect(await policyOn(b, acct)).toEqual(before); // from B's memory
    expect(await policyOn(uncached, acct)).toEqual({ policy: 'listed', senders: ['@db.example'] });
  });

  it('a list set on node A counts on node B at once, and a change made on B on A', async () => {
    const acct = await a.createAccount();
    expect((await policyOn(b, acct)).senders).toEqual([]);
    expect((await putSenders(a, acct, ['@one.example'])).status).toBe(200);
    expect(await policyOn(b, acct)).toEqual({ policy: 'listed', senders: ['@one.example'] });
    expect((await putSenders(b, acct, ['@two.example'])).status).toBe(200);
    expect(await policyOn(a, acct)).toEqual({ policy: 'listed', senders: ['@two.example'] });
  });
});
