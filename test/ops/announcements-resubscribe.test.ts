// The announcements subscribe again itself after Redis drops its subscription. ioredis 5.11.1's own
// resubscription (autoResubscribe) leaves a failed SUBSCRIBE as an unhandled rejection, which ends
// a Node process, and its PINGs still come back, so the node would trust memories that no longer
// hear announcements. Here SUBSCRIBE is refused by an ACL while the subscription is cut: nothing
// goes unhandled, the memory is not trusted; once SUBSCRIBE is allowed again, it is.
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Announcements } from '../../src/queue/announcements.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { pollFor } from '../../testkit/wait.ts';

let redis: PrivateRedis;
let admin: Redis;
let gate: Announcements;
let sub: Redis;
const heard: string[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  redis = await startPrivateRedis();
  admin = new Redis(redis.url);
  const shared = new Redis(redis.url, { maxRetriesPerRequest: null });
  // as the container makes them
  const gateRedis = shared.duplicate({ enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500 });
  sub = shared.duplicate({ autoResubscribe: false });
  for (const c of [shared, gateRedis, sub]) c.on('error', () => {});
  gate = new Announcements(gateRedis, sub, 'iitest');
  gate.listen('key-revoked', { forget: (m) => heard.push(m), clear: () => {} });
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  gate?.close();
  admin?.disconnect();
  await redis?.stop();
});

const trusted = (ms: number) => pollFor(async () => gate.cacheTrusted(), Boolean, { ms, everyMs: 25 });
/** Cuts the subscription; resolves once the gate's connection is back (it has seen the drop). */
async function cutSubscriptions() {
  const back = once(sub, 'close').then(() => once(sub, 'ready'));
  const { localAddress, localPort } = (sub as unknown as { stream: import('node:net').Socket }).stream;
  await admin.call('client', 'kill', 'addr', `${localAddress}:${localPort}`);
  await back;
}

describe('the announcements after their subscription drops', () => {
  it('subscribes again, and trusts its memory only while the subscription is back', async () => {
    expect(await trusted(5000)).toBe(true);
    await admin.publish('iitest:key-revoked', 'first');
    await expect.poll(() => heard).toContain('first');

    await admin.call('acl', 'setuser', 'default', '-subscribe');
    await cutSubscriptions();
    // refused SUBSCRIBE after the reconnect: never trusted, though PINGs come back
    expect(await trusted(2000)).toBeFalsy();
    expect(unhandled).toEqual([]);

    await admin.call('acl', 'setuser', 'default', '+subscribe');
    await cutSubscriptions();
    expect(await trusted(5000)).toBe(true);
    await admin.publish('iitest:key-revoked', 'second');
    await expect.poll(() => heard).toContain('second');
    expect(unhandled).toEqual([]);
  });
});
