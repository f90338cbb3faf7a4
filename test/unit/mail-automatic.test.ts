import { describe, expect, it } from 'vitest';
import { automaticMessage } from '../../src/channels/mail/auto-reply-rules.ts';

const headers = (h: Record<string, string>) => (name: string) => (h[name.toLowerCase()] === undefined ? [] : [h[name.toLowerCase()]]);

describe('automatic mail by its headers', () => {
  it('classifies reports, which are never imported', () => {
    expect(automaticMessage(headers({ 'content-type': 'multipart/report; report-type=delivery-status; boundary=x' }))).toEqual({
      category: 'delivery-status',
      reason: 'automatic message: delivery status notification (bounce)',
      report: true,
    });
    expect(automaticMessage(headers({ 'content-type': 'multipart/report; report-type="disposition-notification"' }))?.category).toBe('read-receipt');
    expect(automaticMessage(headers({ 'content-type': 'multipart/report; report-type=feedback-report' }))).toMatchObject({
      category: 'report',
      reason: 'automatic message: report (feedback-report)',
    });
  });

  it('classifies auto-replies, auto-generated, bulk and mail-system mail, which is imported when it carries files', () => {
    expect(automaticMessage(headers({ 'auto-submitted': 'auto-replied' }))).toMatchObject({ category: 'auto-reply', report: false });
    expect(automaticMessage(headers({ 'x-autoreply': 'yes' }))?.category).toBe('auto-reply');
    expect(automaticMessage(headers({ precedence: 'auto_reply' }))?.category).toBe('auto-reply');
    // Exchange marks its out-of-office replies auto-generated: the subject tells them apart
    expect(automaticMessage(headers({ 'auto-submitted': 'auto-generated' }), 'Automatic reply: Invoice')?.category).toBe('auto-reply');
    expect(automaticMessage(headers({ 'auto-submitted': 'auto-generated' }), 'Invoice 42')).toMatchObject({
      category: 'auto-generated',
      reason: 'automatic message: auto-generated (Auto-Submitted: auto-generated)',
    });
    expect(automaticMessage(headers({ precedence: 'junk' }))?.reason).toBe('automatic message: bulk mail (Precedence: junk)');
    expect(automaticMessage(headers({ 'return-path': '<>' }))?.category).toBe('mail-system');
    expect(automaticMessage(headers({ from: 'MAILER-DAEMON@mx.example.com' }))?.category).toBe('mail-system');
  });

  it("leaves a person's mail alone", () => {
    expect(
      automaticMessage(
        headers({ from: 'ap@supplier.example', 'auto-submitted': 'no', 'x-auto-response-suppress': 'All', 'return-path': '<ap@supplier.example>' }),
        'Automatic reply: not really',
      ),
    ).toBeUndefined();
    expect(automaticMessage(headers({ 'content-type': 'multipart/mixed; boundary=x', precedence: 'first-class' }))).toBeUndefined();
  });
});
