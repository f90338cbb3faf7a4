// NLST/LIST patterns over the flat directory (src/channels/transfer/name-pattern.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNamePattern, MAX_PATTERN_LENGTH, namePattern } from '../../src/channels/transfer/name-pattern.ts';
import { classifyUploadName, NOT_UTF8 } from '../../src/channels/transfer/upload-names.ts';

const matcher = (p: string) => {
  const r = namePattern(p);
  if (!r.ok) throw new Error(r.reason);
  return r.matches;
};

describe('name patterns', () => {
  it('tells patterns from names', () => {
    expect(isNamePattern('*.pdf')).toBe(true);
    expect(isNamePattern('F-2026-00?.pdf')).toBe(true);
    expect(isNamePattern('[ab].pdf')).toBe(true);
    expect(isNamePattern('F-2026-001.pdf')).toBe(false);
    expect(isNamePattern(undefined)).toBe(false);
  });

  it('matches like a shell, case-insensitively, with regex characters taken literally', () => {
    expect(matcher('*.pdf')('F-1.PDF')).toBe(true);
    expect(matcher('*.pdf')('F-1.pdf.error.txt')).toBe(false);
    expect(matcher('/*.error.txt')('F-1.pdf.error.txt')).toBe(true);
    expect(matcher('F-?.pdf')('F-1.pdf')).toBe(true);
    expect(matcher('F-?.pdf')('F-12.pdf')).toBe(false);
    expect(matcher('[!a]*.pdf')('a.pdf')).toBe(false);
    expect(matcher('[!a]*.pdf')('b.pdf')).toBe(true);
    expect(matcher('F+(1)*')('F+(1).pdf')).toBe(true);
    expect(matcher('[x*')('[x.pdf')).toBe(true);
  });

  it('refuses a pattern with path parts', () => {
    expect(namePattern('sub/*.pdf')).toMatchObject({ ok: false, reason: expect.stringMatching(/flat/) });
    expect(namePattern('..\\*.pdf')).toMatchObject({ ok: false });
  });

  it.each([
    ['*', '', true],
    ['*', 'anything.pdf', true],
    ['?', '', false],
    ['??', 'ab', true],
    ['a*', 'A', true],
    ['*a', 'ba', true],
    ['*a', 'ab', false],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false],
    ['**.pdf', 'x.pdf', true],
    ['*.PDF', 'x.pdf', true],
    ['[a-c]*', 'B.pdf', true],
    ['[a-c]*', 'd.pdf', false],
    ['[!a-c]*', 'd.pdf', true],
    ['[^a-c]*', 'a.pdf', false],
    ['[]]x', ']x', true],
    ['[!]]x', 'ax', true],
    ['[!]]x', ']x', false],
    ['[a-]', '-', true],
    ['[-a]', '-', true],
    ['x[', 'x[', true],
    ['?.pdf', '\u{1F4C4}.pdf', true],
    ['é*', 'É.pdf', true],
    ['a.b', 'aXb', false],
    ['$^(x)|+', '$^(x)|+', true],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(matcher(pattern)(name)).toBe(expected);
  });

  it('refuses a backwards range and an over-long pattern with a reason, never an exception', () => {
    expect(namePattern('[z-a]*')).toMatchObject({ ok: false, reason: expect.stringMatching(/range/) });
    expect(namePattern('*'.repeat(MAX_PATTERN_LENGTH + 1))).toMatchObject({ ok: false, reason: expect.stringMatching(/too long/) });
    expect(namePattern('*'.repeat(MAX_PATTERN_LENGTH))).toMatchObject({ ok: true });
  });

  it('takes no time on patterns that make a backtracking RegExp explode', () => {
    const name = 'a'.repeat(40);
    const started = performance.now();
    expect(matcher('*a*a*a*a*a*a*a*a*b')(name)).toBe(false);
    expect(matcher(`${'*a'.repeat(120)}*b`)(name)).toBe(false);
    expect(matcher(`${'*?'.repeat(120)}*b`)(`${'x'.repeat(250)}`)).toBe(false);
    expect(matcher(`${'*a'.repeat(20)}*`)(name)).toBe(true);
    // the RegExp this replaced took 10 s on the first one alone
    expect(performance.now() - started).toBeLessThan(250);
  });

  // a reference matcher that tries every split of `*` (exponential, fine on small inputs)
  type Part = '*' | '?' | 'a' | 'b' | 'A' | '.' | '[ab]' | '[!a]' | '[a-c]';
  const one: Record<Exclude<Part, '*'>, (c: string) => boolean> = {
    '?': () => true,
    a: (c) => c.toLowerCase() === 'a',
    A: (c) => c.toLowerCase() === 'a',
    b: (c) => c.toLowerCase() === 'b',
    '.': (c) => c === '.',
    '[ab]': (c) => 'ab'.includes(c.toLowerCase()),
    '[!a]': (c) => c.toLowerCase() !== 'a',
    '[a-c]': (c) => 'abc'.includes(c.toLowerCase()),
  };
  const reference = (parts: Part[], name: string): boolean => {
    if (!parts.length) return name === '';
    const [head, ...rest] = parts;
    if (head === '*') return Array.from({ length: name.length + 1 }, (_, k) => k).some((k) => reference(rest, name.slice(k)));
    return name !== '' && one[head](name[0]) && reference(rest, name.slice(1));
  };

  it('agrees with a reference matcher on small patterns and names', () => {
    const part = fc.constantFrom<Part>('*', '?', 'a', 'b', 'A', '.', '[ab]', '[!a]', '[a-c]');
    const name = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', 'c', '.', 'x'), maxLength: 8 });
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 7 }), name, (parts, n) => {
        expect(matcher(parts.join(''))(n)).toBe(reference(parts, n));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('names that are not UTF-8', () => {
  it('are refused with a reason that says so (the libraries decode them to U+FFFD)', () => {
    expect(classifyUploadName('caf\ufffd.pdf')).toEqual({ kind: 'refused', reason: NOT_UTF8 });
    expect(classifyUploadName('café.pdf')).toEqual({ kind: 'final', name: 'café.pdf' });
  });
});
