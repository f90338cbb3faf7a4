// When we must not answer a message (RFC 3834 and the conventions real mail systems use):
// answering auto-generated mail, bounces or list traffic causes mail loops and backscatter.
// Pure: headers in, a reason (or undefined: a reply is allowed) out.
import { addressesIn } from './recipient-routing.ts';

export type HeaderLookup = (name: string) => string[];

const first = (header: HeaderLookup, name: string) => header(name)[0]?.trim();
// `<>`, `<`, `>` or nothing, blanks anywhere: blanks dropped first, as /^\s*<?\s*>?\s*$/ took
// cubic time on a Return-Path of blanks (1,000 of them: 2 s, 4,000: 2 minutes)
const emptyPath = (v: string) => /^<?>?$/.test(v.replace(/\s+/g, ''));

/** Why no automatic reply may go to this message's sender, or undefined when one may. */
export function autoReplySuppression(header: HeaderLookup, ownAddresses: string[] = []): string | undefined {
  const autoSubmitted = first(header, 'auto-submitted');
  if (autoSubmitted !== undefined && autoSubmitted.split(';')[0].trim().toLowerCase() !== 'no') {
    return `Auto-Submitted: ${autoSubmitted}`;
  }
  const suppress = first(header, 'x-auto-response-suppress');
  if (suppress !== undefined && suppress.toLowerCase() !== 'none' && suppress !== '') {
    return `X-Auto-Response-Suppress: ${suppress}`;
  }
  for (const name of ['x-autoreply', 'x-autorespond', 'x-auto-reply']) {
    if (header(name).length) return `${name} header present`;
  }
  const returnPath = header('return-path');
  if (returnPath.length && returnPath.some(emptyPath)) return 'empty Return-Path (a bounce)';
  const from = [...header('from'), ...header('sender')].flatMap(addressesIn);
  if (from.some((a) => /^(mailer-daemon|postmaster)@/i.test(a))) return 'sent by a mail system (MAILER-DAEMON or postmaster)';
  const contentType = (first(header, 'content-type') ?? '').toLowerCase();
  if (contentType.startsWith('multipart/report')) return 'a delivery or read report (multipart/report)';
  for (const name of ['list-id', 'list-unsubscribe', 'list-post', 'mailing-list']) {
    if (header(name).length) return `list mail (${name} header)`;
  }
  const precedence = (first(header, 'precedence') ?? '').toLowerCase();
  if (['bulk', 'list', 'junk', 'auto_reply'].includes(precedence)) return `Precedence: ${precedence}`;
  // our own addresses, plus-addressed variants included (invoices+token@ is invoices@)
  const base = (a: string) => a.toLowerCase().replace(/\+[^@]*@/, '@');
  const own = new Set(ownAddresses.map(base));
  if (from.some((a) => own.has(base(a)))) return 'sent by this service';
  if (!replyAddress(header)) return 'no sender address to reply to';
  return undefined;
}

/** Where a reply goes: Reply-To, else From (not Return-Path, often a bounce processor's VERP address). */
export function replyAddress(header: HeaderLookup): string | undefined {
  return header('reply-to').flatMap(addressesIn)[0] ?? header('from').flatMap(addressesIn)[0];
}

/** Kinds of automatic mail (docs/mail.md, "Automatic mail"): the `category` of the log and metric. */
type AutomaticCategory = 'delivery-status' | 'read-receipt' | 'report' | 'auto-reply' | 'auto-generated' | 'bulk' | 'mail-system';

export interface AutomaticMail {
  category: AutomaticCategory;
  /** the reason recorded for the message, for people */
  reason: string;
  /** a report (multipart/report) is never imported, whatever it carries: a bounce quotes the original */
  report: boolean;
}

const OUT_OF_OFFICE_SUBJECT =
  /^\s*(automatic reply|auto(matic)?[- ]?(reply|response|antwort)|out of (the )?office|abwesen|afwezig|absence|r[ée]ponse automatique)/i;

/**
 * Whether the message was sent by a machine on its own (RFC 3834, RFC 3464 DSNs, RFC 8098 read
 * receipts, and the headers mail systems use), and of which kind. Undefined: a person sent it.
 */
export function automaticMessage(header: HeaderLookup, subject = ''): AutomaticMail | undefined {
  const contentType = (first(header, 'content-type') ?? '').toLowerCase();
  if (contentType.startsWith('multipart/report')) {
    const type = /report-type\s*=\s*"?([a-z0-9-]+)/.exec(contentType)?.[1] ?? 'unknown';
    if (type === 'delivery-status') return { category: 'delivery-status', reason: 'automatic message: delivery status notification (bounce)', report: true };
    if (type === 'disposition-notification') return { category: 'read-receipt', reason: 'automatic message: read receipt', report: true };
    return { category: 'report', reason: `automatic message: report (${type})`, report: true };
  }
  const auto = (category: AutomaticCategory, reason: string): AutomaticMail => ({ category, reason: `automatic message: ${reason}`, report: false });
  const autoSubmitted = (first(header, 'auto-submitted') ?? 'no').split(';')[0].trim().toLowerCase();
  const precedence = (first(header, 'precedence') ?? '').toLowerCase();
  const flagged = ['x-autoreply', 'x-autorespond', 'x-auto-reply'].some((name) => header(name).length > 0);
  if (autoSubmitted === 'auto-replied' || flagged || precedence === 'auto_reply' || (autoSubmitted !== 'no' && OUT_OF_OFFICE_SUBJECT.test(subject))) {
    return auto('auto-reply', 'out-of-office or other auto-reply');
  }
  if (autoSubmitted !== 'no') return auto('auto-generated', `auto-generated (Auto-Submitted: ${autoSubmitted})`);
  if (['bulk', 'junk', 'list'].includes(precedence)) return auto('bulk', `bulk mail (Precedence: ${precedence})`);
  const returnPath = header('return-path');
  const from = [...header('from'), ...header('sender')].flatMap(addressesIn);
  if (returnPath.some(emptyPath) || from.some((a) => /^(mailer-daemon|postmaster)@/i.test(a))) {
    return auto('mail-system', 'from a mail system (empty Return-Path or MAILER-DAEMON)');
  }
  return undefined;
}
