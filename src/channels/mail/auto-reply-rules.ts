// When we must not answer a message (RFC 3834 and the conventions real mail systems use):
// answering auto-generated mail, bounces or list traffic causes mail loops and backscatter.
// Pure: headers in, a reason (or undefined: a reply is allowed) out.
import { addressesIn } from './recipient-routing.ts';

export type HeaderLookup = (name: string) => string[];

const first = (header: HeaderLookup, name: string) => header(name)[0]?.trim();

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
  if (returnPath.length && returnPath.some((v) => /^\s*<?\s*>?\s*$/.test(v))) return 'empty Return-Path (a bounce)';
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
