// The sign-in throttle's rules on the real Redis, with a clock the test moves: the pair's growing
// delay, the person's ceiling that tightens delays for every address but never for one that has
// not failed, the address's ceiling, forgetting after the window, success clearing the pair.
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { SignInThrottle } from '../../src/http/dashboard/sign-in-throttle.ts';

const redis = new Redis('redis://127.0.0.1:6379');
afterAll(() => redis.disconnect());

let now = 1_000_000;
let throttle: SignInThrottle;
let prefix: string;
const WINDOW = 15 * 60_000;
beforeEach(() => {
  prefix = `iitest${randomToken(8)}`;
  throttle = new SignInThrottle(redis, prefix, { attempts: 5, ceiling: 20, firstDelayMs: 1000, windowMs: WINDOW }, () => now);
});

const fail = async (address: string, email: string, times = 1) => {
  for (let i = 0; i < times; i++) await throttle.recordFailure(address, email);
};

describe('the sign-in throttle', () => {
  it('gives a pair its free failures, then waits 1 s, 2 s, 4 s ... after each failure, at most the window', async () => {
    await fail('198.51.100.1', 'owner@example.com', 4);
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(0);
    await fail('198.51.100.1', 'owner@example.com');
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(1000);
    now += 999;
    expect(await throttle.blockedFor('198.51.100.1', 'Owner@Example.com ')).toBe(1);
    now += 1;
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(0);
    await fail('198.51.100.1', 'owner@example.com');
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(2000);
    await fail('198.51.100.1', 'owner@example.com');
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(4000);
    await fail('198.51.100.1', 'owner@example.com', 30);
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(WINDOW);
    // the owner at another address is not affected at all
    expect(await throttle.blockedFor('203.0.113.9', 'owner@example.com')).toBe(0);
  });

  it('past the person’s ceiling every failing address gets one free try, an address that has not failed none less', async () => {
    // a guessing run over many addresses, a few tries each
    for (let i = 0; i < 10; i++) await fail(`198.51.100.${i}`, 'owner@example.com', 2);
    expect(await throttle.blockedFor('198.51.100.50', 'owner@example.com')).toBe(0);
    await fail('198.51.100.50', 'owner@example.com');
    // the ceiling (20) is passed: one failure is enough to wait
    expect(await throttle.blockedFor('198.51.100.50', 'owner@example.com')).toBe(1000);
    expect(await throttle.blockedFor('198.51.100.3', 'owner@example.com')).toBe(2000);
    // the owner, from an address that has not failed, signs in at once
    expect(await throttle.blockedFor('203.0.113.9', 'owner@example.com')).toBe(0);
    // and another person is untouched by it
    await fail('198.51.100.3', 'colleague@example.com');
    expect(await throttle.blockedFor('198.51.100.3', 'colleague@example.com')).toBe(0);
  });

  it('an address failing on many e-mails waits past the ceiling, for any e-mail', async () => {
    for (let i = 0; i < 19; i++) await fail('198.51.100.7', `nobody${i}@example.com`);
    expect(await throttle.blockedFor('198.51.100.7', 'owner@example.com')).toBe(0);
    await fail('198.51.100.7', 'nobody19@example.com');
    expect(await throttle.blockedFor('198.51.100.7', 'owner@example.com')).toBe(1000);
    expect(await throttle.blockedFor('198.51.100.8', 'owner@example.com')).toBe(0);
  });

  it('a success clears the pair; the counts are gone from Redis after the window', async () => {
    await fail('198.51.100.1', 'owner@example.com', 6);
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBeGreaterThan(0);
    await throttle.recordSuccess('198.51.100.1', 'owner@example.com');
    expect(await throttle.blockedFor('198.51.100.1', 'owner@example.com')).toBe(0);
    const ttls = await Promise.all((await redis.keys(`${prefix}:signin:*`)).map((k) => redis.pttl(k)));
    expect(ttls.length).toBe(2);
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(WINDOW - 60_000);
    for (const ttl of ttls) expect(ttl).toBeLessThanOrEqual(WINDOW);
  });
});
