import { describe, expect, it } from 'vitest';
import { newId, randomToken } from '../../src/domain/ids.ts';

describe('ids', () => {
  it('are prefixed, 24 characters, base62 and do not repeat', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('inv')));
    expect(ids.size).toBe(20_000);
    for (const id of [...ids].slice(0, 100)) expect(id).toMatch(/^inv_[0-9A-Za-z]{20}$/);
  });

  it('random tokens use the whole alphabet about evenly', () => {
    const counts = new Map<string, number>();
    for (const ch of randomToken(62_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(700); // expected 1000 each; 700 is > 9 standard deviations away
      expect(n).toBeLessThan(1300);
    }
  });
});
