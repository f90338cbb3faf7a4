// Replies never tell a stranger anything: who gets one, where it goes, what it may say, and the
// advice that fits each reason (and no other).
import { describe, expect, it } from 'vitest';
import { NOT_AUTHENTICATED, replyFor, trustedReplyAddress } from '../../src/channels/mail/reply-decision.ts';
import { adviceFor, composeReply, shownReason } from '../../src/channels/mail/reply-message.ts';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import { isListed, normaliseSenders, senderStanding } from '../../src/domain/sender-policy.ts';
import { uncheckedVerdict, type SenderVerdict } from '../../src/domain/sender-verdict.ts';

const headers = (h: Record<string, string>) => (name: string) => (h[name] ? [h[name]] : []);
const authed = (from: string): SenderVerdict => ({ ...uncheckedVerdict(from), source: 'imap-header', dmarc: 'pass', authenticated: true });
const NAME_ADVICE = 'Name each PDF after its invoice number or invoice id (for example INV-2026-001.pdf) and send it again.';

describe('sender policy', () => {
  it('lists addresses and @domains, refuses anything else with the field', () => {
    expect(normaliseSenders([' Billing@Supplier.example ', '@supplier.example', 'billing@supplier.example'])).toEqual([
      '@supplier.example',
      'billing@supplier.example',
    ]);
    expect(() => normaliseSenders(['supplier.example'])).toThrow(expect.objectContaining({ kind: 'invalid', field: 'senders' }));
    expect(() => normaliseSenders('a@b.example')).toThrow(expect.objectContaining({ field: 'senders' }));
    expect(isListed(['@supplier.example'], 'x@supplier.example')).toBe(true);
    expect(isListed(['@supplier.example'], 'x@mail.supplier.example')).toBe(false);
  });

  it('a listed sender counts only when authenticated; anyone lets the rest through, listed holds them', () => {
    const listed = { policy: 'listed' as const, senders: ['@supplier.example'] };
    expect(senderStanding(listed, authed('a@supplier.example'))).toBe('listed');
    expect(senderStanding(listed, uncheckedVerdict('a@supplier.example'))).toBe('unauthenticated');
    expect(senderStanding(listed, authed('a@stranger.example'))).toBe('unlisted');
    expect(senderStanding({ ...listed, policy: 'anyone' }, uncheckedVerdict('a@stranger.example'))).toBe('allowed');
  });
});

describe('who gets a reply', () => {
  it('nobody whose From is not authenticated (no backscatter to a forged From)', () => {
    const r = replyFor(headers({ from: 'ceo@supplier.example' }), uncheckedVerdict('ceo@supplier.example'), 'allowed', [], []);
    expect(r).toMatchObject({ state: 'suppressed', reason: NOT_AUTHENTICATED, facts: false });
    expect(replyFor(headers({ from: 'a@supplier.example' }), authed('a@supplier.example'), 'allowed', [], [])).toMatchObject({
      state: 'pending',
      facts: false,
    });
    expect(replyFor(headers({ from: 'a@supplier.example' }), authed('a@supplier.example'), 'listed', [], [])).toMatchObject({ state: 'pending', facts: true });
  });

  it("Reply-To only in the From's domain", () => {
    expect(trustedReplyAddress(headers({ 'reply-to': 'ap@supplier.example' }), 'billing@supplier.example')).toBe('ap@supplier.example');
    expect(trustedReplyAddress(headers({ 'reply-to': 'victim@elsewhere.example' }), 'billing@supplier.example')).toBe('billing@supplier.example');
  });
});

describe('what a reply says', () => {
  const total = intakeReason('einvoice_total_differs', { number: 'F-1', grand: { cents: 100 }, total: { cents: 12_100 } });
  const none = intakeReason('no_invoice', { awaits: { name: 'F-9', einvoiceNumbers: [] } });
  const big = intakeReason('file_too_large', { max: 5_242_880 });

  it('invoice facts only to a listed sender', () => {
    expect(shownReason({ filename: 'a.pdf', reason: total.text, code: total.code }, true)).toBe(total.text);
    expect(shownReason({ filename: 'a.pdf', reason: total.text, code: total.code }, false)).toBe('It could not be matched to an invoice');
    expect(shownReason({ filename: 'a.pdf', reason: none.text, code: none.code }, false)).toBe('It could not be matched to an invoice');
    expect(shownReason({ filename: 'a.pdf', reason: big.text, code: big.code }, false)).toBe(big.text);
    const m = composeReply({ from: 'i@x.example', to: 'a@b.example', problems: [{ filename: 'F-1.pdf', reason: total.text, code: total.code }], facts: false });
    expect(m.text).not.toMatch(/121|F-1 with|total/);
  });

  it('each reason its own advice; none ends with advice that does not apply', () => {
    expect(adviceFor([{ filename: 'a.pdf', reason: big.text, code: big.code }], true)).toEqual([
      'Send files of at most 5 MB each: split them over several e-mails, or scan at a lower resolution.',
    ]);
    expect(adviceFor([{ filename: 'a.pdf', reason: total.text, code: total.code }], true)).toEqual([
      "Send the file whose totals match the invoice, or ask us to correct the invoice's total first.",
    ]);
    expect(adviceFor([{ filename: 'a.pdf', reason: none.text, code: none.code }], true)).toEqual([NAME_ADVICE]);
    const seven = intakeReason('archive_not_read', { kind: '7z' });
    const text = composeReply({
      from: 'i@x.example',
      to: 'a@b.example',
      problems: [
        { filename: 'B.7z', reason: seven.text, code: seven.code },
        { filename: 'huge.pdf', reason: big.text, code: big.code },
      ],
    }).text;
    expect(text).not.toContain('Name each PDF');
    expect(text).toContain('Send the PDF files themselves, or pack them in a ZIP archive.');
    expect(text).toContain('Send files of at most 5 MB each');
  });
});
