// Properties of the one decision (docs/matching.md), over generated accounts and files with
// fast-check: whatever the names, subjects and e-invoice numbers, a file is only ever attached to
// an invoice whose number is the whole of a token of its name, its e-invoice or its subject
// (separators alike), and a name made only of dates, years and counters never attaches by a token.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideMatch } from '../../src/domain/match-decision.ts';
import { matchKey, tokenCandidates } from '../../src/domain/match-names.ts';
import { evidenceOf, invoiceIdOf } from '../helpers/match-evidence.ts';

const sep = fc.constantFrom('-', '_', '.', '/', ' ');
const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const letters = fc.constantFrom('RE', 'INV', 'F', 'Rg', 'AB', 'Ju\u0308rgen', 'J\u00fcrgen', 'Factuur', 'Rechnung', 'IMG', 'scan', 'DSC', 'x');
/** invoice numbers as accounting systems make them: short numbers, years, prefixed series */
const number = fc.oneof(
  digits(1, 6),
  fc.tuple(letters, sep, digits(2, 4), sep, digits(1, 5)).map((p) => p.join('')),
  fc.tuple(letters, sep, digits(3, 6)).map((p) => p.join('')),
  fc.constantFrom('2024', '0815', '000123', '0001', '0123', 'INV-000123', 'RE/2024/0816'),
);
const date = fc
  .tuple(fc.integer({ min: 1990, max: 2030 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
  .chain(([y, m, d]) =>
    fc.constantFrom(
      `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
      `${d}.${m}.${y}`,
      `${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`,
      `${y}`,
    ),
  );
const counter = fc.tuple(fc.constantFrom('IMG_', 'scan_', 'DSC', 'PXL_', 'Scan ', 'WA'), digits(3, 8)).map(([a, b]) => a + b);
const word = fc.constantFrom('Rechnung', 'Factuur', 'invoice', 'signed', 'v2', 'kopie', 'AGB', 'final', '(1)');
/** a name: pieces of numbers (of the account or not, with other separators), dates, counters, words */
const text = (account: string[]) =>
  fc
    .array(
      fc.oneof(
        number,
        date,
        counter,
        word,
        ...(account.length ? [fc.constantFrom(...account), fc.constantFrom(...account).map((n) => n.replace(/[-_./ ]/g, '_'))] : []),
      ),
      { minLength: 1, maxLength: 5 },
    )
    .chain((parts) => fc.array(sep, { minLength: parts.length, maxLength: parts.length }).map((seps) => parts.map((p, i) => (i ? seps[i] : '') + p).join('')));

const file = fc.uniqueArray(number, { minLength: 0, maxLength: 8, selector: (n) => n }).chain((account) =>
  fc.record({
    account: fc.constant(account),
    name: text(account),
    subject: fc.option(
      fc.tuple(fc.constantFrom('', 'AW: ', 'Fwd: '), text(account)).map(([r, t]) => r + t),
      { nil: undefined },
    ),
    messageFiles: fc.integer({ min: 1, max: 3 }),
    einvoices: fc.array(
      fc.oneof(number, ...(account.length ? [fc.constantFrom(...account)] : [])).map((n) => ({ kind: 'invoice' as const, number: n })),
      { maxLength: 2 },
    ),
  }),
);

const wholeTokens = (s: string | undefined) => (s === undefined ? [] : [s, ...tokenCandidates(s).map((c) => c.text)].map(matchKey));

describe('the decision over generated files', () => {
  it('attaches only to an invoice whose number is a whole token of the name, the e-invoice or the subject', () => {
    fc.assert(
      fc.property(file, (f) => {
        const d = decideMatch(evidenceOf(f));
        if (d.kind !== 'attach') return;
        const number = f.account.find((n) => invoiceIdOf(n) === d.invoiceId)!;
        const allowed = new Set([...wholeTokens(f.name), ...f.einvoices.map((e) => matchKey(e.number)), ...wholeTokens(f.subject)]);
        expect(allowed.has(matchKey(number)), `${JSON.stringify(f)} -> ${number}`).toBe(true);
        if (d.by === 'subject') expect(f.messageFiles, "a subject names only a message's only file").toBe(1);
      }),
      { numRuns: 3000 },
    );
  });

  it('never attaches by a token of a name made only of dates, years and counters', () => {
    fc.assert(
      fc.property(fc.uniqueArray(number, { maxLength: 8 }), fc.array(fc.oneof(date, counter), { minLength: 1, maxLength: 3 }), sep, (account, parts, s) => {
        const name = parts.join(s);
        const d = decideMatch(evidenceOf({ name, account }));
        if (d.kind === 'attach') expect(d.by, `${name} in ${JSON.stringify(account)}`).toBe('invoice_number');
      }),
      { numRuns: 2000 },
    );
  });

  it('two invoices named by the file itself are never a match', () => {
    fc.assert(
      fc.property(fc.uniqueArray(number, { minLength: 2, maxLength: 6, selector: matchKey }), fc.nat(), fc.nat(), (account, i, j) => {
        const [a, b] = [account[i % account.length], account[(i + 1 + (j % (account.length - 1))) % account.length]];
        const d = decideMatch(evidenceOf({ name: `scan ${a}`, account, einvoices: [{ kind: 'invoice', number: b }] }));
        if (d.kind === 'attach') expect(matchKey(account.find((n) => invoiceIdOf(n) === d.invoiceId)!)).toBe(matchKey(b));
      }),
      { numRuns: 2000 },
    );
  });
});
