// Client text that reached regular expressions with quadratic or cubic backtracking (issue 49,
// item 1's sweep of src/): each case took seconds to minutes before and stalled the event loop of
// every role in the process; now each answers at once, with the same result as before on
// ordinary input.
import { describe, expect, it } from 'vitest';
import { autoReplySuppression, automaticMessage } from '../../src/channels/mail/auto-reply-rules.ts';
import { imapHeaderVerdict } from '../../src/domain/authentication-results.ts';
import { readStructure } from '../../src/formats/pdf-structure.ts';
import { labelledNumbers } from '../../src/domain/pdf-text-evidence.ts';
import { normaliseFileName } from '../../src/intake/file-name.ts';

/** Runs `fn`, expecting it to be done well within `ms` (the expressions replaced took seconds on these inputs). */
function quick<T>(fn: () => T, ms = 250): T {
  const started = performance.now();
  const out = fn();
  expect(performance.now() - started).toBeLessThan(ms);
  return out;
}

const headers = (h: Record<string, string>) => (name: string) => (h[name] !== undefined ? [h[name]] : []);

describe('text built to backtrack', () => {
  it('a Return-Path of blanks (cubic before: 2,000 blanks took 17 s)', () => {
    const blanks = `${' '.repeat(5000)}x`;
    const from = 'Anna <anna@b.example>';
    expect(quick(() => autoReplySuppression(headers({ 'return-path': blanks, from })))).toBeUndefined();
    expect(quick(() => automaticMessage(headers({ 'return-path': blanks, from })))).toBeUndefined();
    // what it still recognises
    for (const empty of ['<>', ' < > ', '', '<', '\t>'])
      expect(autoReplySuppression(headers({ 'return-path': empty, from }))).toBe('empty Return-Path (a bounce)');
    expect(autoReplySuppression(headers({ 'return-path': '<anna@b.example>', from }))).toBeUndefined();
  });

  it('a PDF text with a label and a long run of blanks (quadratic before: 16,000 blanks took 2.5 s)', () => {
    expect(quick(() => labelledNumbers(`Invoice${' '.repeat(200_000)}!`))).toEqual([]);
    expect(labelledNumbers('Invoice number:\n\n   F-2026-001, Rechnungsnr.\t\t 77')).toEqual([{ text: 'F-2026-001' }, { text: '77' }]);
  });

  it('a From address ending in a long run of > (quadratic before)', () => {
    const from = `a@example.com${'>'.repeat(60_000)}x`;
    const verdict = quick(() => imapHeaderVerdict(['mx.example; dmarc=pass header.from=example.com'], from, 'mx.example'));
    expect(verdict).toBeDefined();
  });

  it('a file name with a long run of blanks before its end (quadratic before)', () => {
    const name = `F${' '.repeat(100_000)}x.pdf`;
    expect(quick(() => normaliseFileName(name))).toMatchObject({ ok: true });
    expect(normaliseFileName('RE-1 (1).pdf')).toMatchObject({ ok: true, matchName: 'RE-1' });
    expect(normaliseFileName('RE-1(12).pdf')).toMatchObject({ ok: true, matchName: 'RE-1' });
    expect(normaliseFileName('RE-1 (1234).pdf')).toMatchObject({ ok: true, matchName: 'RE-1 (1234)' });
  });

  it('a cross-reference table that is one long run of digits (quadratic before: 100,000 digits took 51 s)', () => {
    const head = '%PDF-1.4\n';
    const pdf = Buffer.from(`${head}xref\n${'1'.repeat(100_000)}\ntrailer\n<< /Size 1 >>\nstartxref\n${head.length}\n%%EOF\n`, 'latin1');
    expect(quick(() => readStructure(pdf))).toBeUndefined();
  });
});
