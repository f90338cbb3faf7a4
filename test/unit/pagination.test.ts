import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, pageLinks, parsePageRequest } from '../../src/domain/pagination.ts';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError && e.kind === 'invalid') return e.field;
  }
  return undefined;
};

describe('parsePageRequest', () => {
  it('defaults to 50 items from the newest', () => {
    expect(parsePageRequest({})).toEqual({ limit: DEFAULT_LIMIT });
    expect(parsePageRequest({ limit: '', from: '' })).toEqual({ limit: 50 });
  });

  it('takes a limit from 1 to 250 and an id cursor', () => {
    expect(parsePageRequest({ limit: '1' })).toEqual({ limit: 1 });
    expect(parsePageRequest({ limit: String(MAX_LIMIT), from: 'cst_abc' })).toEqual({ limit: 250, from: 'cst_abc' });
    expect(parsePageRequest({ limit: ' 20 ' })).toEqual({ limit: 20 });
    expect(parsePageRequest({ limit: 7 })).toEqual({ limit: 7 });
  });

  it('refuses a bad limit naming limit', () => {
    for (const limit of ['0', '251', '-1', '1.5', 'ten', '1e2', '0x10', ['1', '2']])
      expect(
        fieldOf(() => parsePageRequest({ limit })),
        String(limit),
      ).toBe('limit');
  });

  it('refuses a bad cursor naming from', () => {
    for (const from of ['x'.repeat(37), 'a b', "x';--", 'ü', 'a/b'])
      expect(
        fieldOf(() => parsePageRequest({ from })),
        from,
      ).toBe('from');
    expect(parsePageRequest({ from: 'x'.repeat(36) }).from).toHaveLength(36);
  });
});

describe('pageLinks', () => {
  const base = 'https://api.example.com/v2/invoices';

  it('builds previous and next with from, limit and the HAL type', () => {
    const links = pageLinks(base, { items: [], next: 'inv_old', previous: 'inv_new' }, 25);
    expect(links).toEqual({
      previous: { href: `${base}?from=inv_new&limit=25`, type: 'application/hal+json' },
      next: { href: `${base}?from=inv_old&limit=25`, type: 'application/hal+json' },
    });
  });

  it('is null where there is no page', () => {
    expect(pageLinks(base, { items: [] }, 50)).toEqual({ previous: null, next: null });
    expect(pageLinks(base, { items: [], next: 'a' }, 50).previous).toBeNull();
  });

  it('keeps filters (encoded) and leaves out absent ones', () => {
    const links = pageLinks(base, { items: [], next: 'inv_1' }, 10, { invoicestatus: 'paid', other: undefined, q: 'a b&c' });
    const url = new URL(links.next!.href);
    expect(Object.fromEntries(url.searchParams)).toEqual({ invoicestatus: 'paid', q: 'a b&c', from: 'inv_1', limit: '10' });
    expect(links.next!.href).not.toContain('other');
  });
});
