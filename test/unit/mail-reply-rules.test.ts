import { describe, expect, it } from 'vitest';
import { autoReplySuppression, replyAddress } from '../../src/channels/mail/auto-reply-rules.ts';
import { composeReply } from '../../src/channels/mail/reply-message.ts';
import { nextReplyAt, replyAllowed, senderKey } from '../../src/channels/mail/reply-rate-limit.ts';

const headers = (h: Record<string, string>) => (name: string) => (h[name] === undefined ? [] : [h[name]]);
const person = { from: 'Anna <anna@supplier.example>' };

describe('auto-reply suppression', () => {
  it('allows a reply to ordinary personal mail, and Auto-Submitted: no', () => {
    expect(autoReplySuppression(headers(person))).toBeUndefined();
    expect(autoReplySuppression(headers({ ...person, 'auto-submitted': 'no' }))).toBeUndefined();
    expect(autoReplySuppression(headers({ ...person, 'x-auto-response-suppress': 'None', 'return-path': '<anna@supplier.example>' }))).toBeUndefined();
  });

  it.each([
    [{ 'auto-submitted': 'auto-generated' }, /Auto-Submitted/],
    [{ 'auto-submitted': 'auto-replied; owner-email="x@y"' }, /Auto-Submitted/],
    [{ 'x-auto-response-suppress': 'All' }, /X-Auto-Response-Suppress/],
    [{ 'x-auto-response-suppress': 'OOF, AutoReply' }, /X-Auto-Response-Suppress/],
    [{ 'return-path': '<>' }, /bounce/],
    [{ from: 'MAILER-DAEMON@mx.supplier.example' }, /mail system/],
    [{ from: 'Mail Delivery System <postmaster@supplier.example>' }, /mail system/],
    [{ 'content-type': 'multipart/report; report-type=delivery-status' }, /report/],
    [{ 'list-id': '<invoices.lists.example>' }, /list/],
    [{ 'list-unsubscribe': '<mailto:u@lists.example>' }, /list/],
    [{ precedence: 'bulk' }, /Precedence/],
    [{ precedence: 'list' }, /Precedence/],
    [{ precedence: 'junk' }, /Precedence/],
    [{ 'x-autoreply': 'yes' }, /x-autoreply/],
  ])('suppresses %o', (extra, reason) => {
    expect(autoReplySuppression(headers({ ...person, ...extra }))).toMatch(reason);
  });

  it('never answers our own mail or mail without a sender', () => {
    expect(autoReplySuppression(headers({ from: 'invoices@example.com' }), ['invoices@example.com'])).toMatch(/this service/);
    expect(autoReplySuppression(headers({ from: 'Import <Invoices+abc123@Example.com>' }), ['invoices@example.com'])).toMatch(/this service/);
    expect(autoReplySuppression(headers({ from: 'anna+billing@supplier.example' }), ['invoices@example.com'])).toBeUndefined();
    expect(autoReplySuppression(headers({}))).toMatch(/no sender/);
  });

  it('replies to Reply-To, else From (not to the Return-Path)', () => {
    expect(replyAddress(headers({ ...person, 'reply-to': 'Books <books@supplier.example>', 'return-path': '<bounce-123@esp.example>' }))).toBe(
      'books@supplier.example',
    );
    expect(replyAddress(headers({ ...person, 'return-path': '<bounce-123@esp.example>' }))).toBe('anna@supplier.example');
  });
});

describe('reply rate limit per sender', () => {
  const now = new Date('2026-02-02T12:00:00Z');
  const ago = (min: number) => new Date(now.getTime() - min * 60_000);

  it('allows up to the limit within a sliding hour', () => {
    expect(replyAllowed([], now, 2)).toBe(true);
    expect(replyAllowed([ago(10)], now, 2)).toBe(true);
    expect(replyAllowed([ago(10), ago(50)], now, 2)).toBe(false);
    expect(replyAllowed([ago(10), ago(61)], now, 2)).toBe(true);
    expect(replyAllowed([], now, 0)).toBe(false);
  });

  it('says when the next reply fits again', () => {
    expect(nextReplyAt([ago(10), ago(50)], now, 2)).toEqual(new Date(ago(50).getTime() + 3_600_000));
    expect(nextReplyAt([ago(10)], now, 2)).toEqual(now);
  });

  it('counts addresses case-insensitively', () => {
    expect(senderKey(' Anna@Supplier.Example ')).toBe('anna@supplier.example');
  });
});

describe('reply message', () => {
  it('answers in the thread, lists each file with its reason, and is marked auto-replied', () => {
    const m = composeReply({
      from: 'invoices@example.com',
      to: 'anna@supplier.example',
      originalSubject: 'RE: Invoice March',
      originalMessageId: '<m1@supplier.example>',
      originalReferences: ['<m0@supplier.example>'],
      problems: [{ filename: 'F-1.pdf', reason: 'No invoice with id or number F-1' }],
    });
    expect(m.subject).toBe('Re: Invoice March');
    expect(m.inReplyTo).toBe('<m1@supplier.example>');
    expect(m.references).toEqual(['<m0@supplier.example>', '<m1@supplier.example>']);
    expect(m.text).toContain('- F-1.pdf: No invoice with id or number F-1');
    expect(m.headers['Auto-Submitted']).toBe('auto-replied');
    // our own reply would be suppressed by our own rules: no loops between two such services
    expect(autoReplySuppression((n) => (n === 'auto-submitted' ? [m.headers['Auto-Submitted']] : n === 'from' ? [m.from] : []))).toMatch(/Auto-Submitted/);
  });
});
