// Whether a message's sender may get a reply, where it goes and what it may say (docs/mail.md,
// "Replies to senders"). A reply goes only to a sender whose From is authenticated (DMARC pass,
// or SPF or DKIM aligned): to anyone else, none at all, so a forged From gets no backscatter.
// Invoice facts (a total, whether a number exists) only to a listed sender. Pure.
import { aligned } from '../../domain/authentication-results.ts';
import type { SenderStanding } from '../../domain/sender-policy.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import { autoReplySuppression, type HeaderLookup } from './auto-reply-rules.ts';
import type { StageReply } from './mail-message-rows.ts';
import { addressesIn } from './recipient-routing.ts';
import { senderKey } from './reply-rate-limit.ts';

export const NOT_AUTHENTICATED = 'the sender is not authenticated (no DMARC, SPF or DKIM pass for its From): no reply, so a forged From gets none';

const domainOf = (a: string) => a.slice(a.lastIndexOf('@') + 1);

/**
 * Where a reply goes: the authenticated From; Reply-To only in the From's own domain (else anyone
 * with a domain of their own could aim our replies at a third party).
 */
export function trustedReplyAddress(header: HeaderLookup, from: string): string {
  const replyTo = header('reply-to').flatMap(addressesIn)[0];
  return replyTo && from && aligned(domainOf(replyTo.toLowerCase()), domainOf(from)) ? replyTo : from;
}

export function replyFor(header: HeaderLookup, verdict: SenderVerdict, standing: SenderStanding, ownAddresses: string[], refs: string[]): StageReply {
  const suppressed = autoReplySuppression(header, ownAddresses) ?? (verdict.authenticated ? undefined : NOT_AUTHENTICATED);
  return {
    recipient: senderKey(trustedReplyAddress(header, verdict.from)),
    refs,
    state: suppressed ? 'suppressed' : 'pending',
    reason: suppressed,
    facts: standing === 'listed',
  };
}
