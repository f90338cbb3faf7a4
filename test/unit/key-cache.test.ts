import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyCache } from '../../src/services/key-cache.ts';

const scope = { accountId: 'acc_1', mode: 'live' as const };

afterEach(() => vi.useRealTimers());

describe('KeyCache', () => {
  it('returns what was set until the TTL ends', () => {
    vi.useFakeTimers();
    const cache = new KeyCache(1000);
    cache.set('h1', scope);
    expect(cache.get('h1')).toEqual(scope);
    vi.advanceTimersByTime(999);
    expect(cache.get('h1')).toEqual(scope);
    vi.advanceTimersByTime(1);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('forgets one hash or everything', () => {
    const cache = new KeyCache(60_000);
    cache.set('h1', scope);
    cache.set('h2', scope);
    cache.forget('h1');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toEqual(scope);
    cache.clear();
    expect(cache.get('h2')).toBeUndefined();
  });

  it('stores nothing with a TTL of 0 and stays within its size', () => {
    const off = new KeyCache(0);
    off.set('h1', scope);
    expect(off.get('h1')).toBeUndefined();
    const small = new KeyCache(60_000, 2);
    small.set('a', scope);
    small.set('b', scope);
    small.set('c', scope);
    expect([small.get('a'), small.get('b'), small.get('c')]).toEqual([undefined, scope, scope]);
  });

  it('stores nothing from a lookup that began before a forget or clear (it may have read a revoked key)', () => {
    const cache = new KeyCache(60_000);
    const since = cache.generation;
    cache.forget('other');
    cache.set('h1', scope, since);
    expect(cache.get('h1')).toBeUndefined();
    const again = cache.generation;
    cache.set('h1', scope, again);
    expect(cache.get('h1')).toEqual(scope);
    cache.clear();
    cache.set('h2', scope, again);
    expect(cache.get('h2')).toBeUndefined();
  });
});
