// NLST/LIST patterns over the flat directory (src/channels/transfer/name-pattern.ts).
import { describe, expect, it } from 'vitest';
import { isNamePattern, namePattern } from '../../src/channels/transfer/name-pattern.ts';
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
});

describe('names that are not UTF-8', () => {
  it('are refused with a reason that says so (the libraries decode them to U+FFFD)', () => {
    expect(classifyUploadName('caf\ufffd.pdf')).toEqual({ kind: 'refused', reason: NOT_UTF8 });
    expect(classifyUploadName('café.pdf')).toEqual({ kind: 'final', name: 'café.pdf' });
  });
});
