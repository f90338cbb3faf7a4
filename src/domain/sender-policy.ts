// Who may send an account's mail (per account and mode): anyone, or only listed senders,
// addresses (a@b.example) or domains (@b.example), and a listed sender counts only when its mail
// is authenticated for its From (DMARC, or SPF or DKIM aligned: SenderVerdict.authenticated).
// A stranger can write any From. Pure.
import { DomainError } from './errors.ts';
import type { SenderVerdict } from './sender-verdict.ts';

export const SENDER_POLICIES = ['anyone', 'listed'] as const;
export type SenderPolicyMode = (typeof SENDER_POLICIES)[number];

export interface SenderPolicy {
  policy: SenderPolicyMode;
  /** lower-cased addresses and `@domain`s, sorted, no duplicates */
  senders: string[];
}

export const MAX_SENDERS = 200;
const ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;
const DOMAIN = /^@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/** The list as stored, or `invalid` naming the field and the entry that is neither an address nor `@domain`. */
export function normaliseSenders(list: unknown): string[] {
  if (!Array.isArray(list)) throw DomainError.invalid('Field senders must be a list of addresses (a@b.example) and domains (@b.example)', 'senders');
  if (list.length > MAX_SENDERS) throw DomainError.invalid(`Field senders may hold at most ${MAX_SENDERS} entries`, 'senders');
  const out = new Set<string>();
  for (const raw of list) {
    const s = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (s.length > 254 || !(ADDRESS.test(s) || DOMAIN.test(s))) {
      throw DomainError.invalid(`Field senders: ${JSON.stringify(raw)} is neither an address (a@b.example) nor a domain (@b.example)`, 'senders');
    }
    out.add(s);
  }
  return [...out].sort();
}

export function parseSenderPolicy(raw: unknown): SenderPolicyMode {
  const s = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!(SENDER_POLICIES as readonly string[]).includes(s)) throw DomainError.invalid(`Field policy must be one of ${SENDER_POLICIES.join(', ')}`, 'policy');
  return s as SenderPolicyMode;
}

/** Whether the address is on the list: itself, or its domain as `@domain` (exactly: not its subdomains). */
export function isListed(senders: string[], address: string): boolean {
  const a = address.trim().toLowerCase();
  if (!a.includes('@')) return false;
  return senders.includes(a) || senders.includes(a.slice(a.lastIndexOf('@')));
}

/**
 * What the policy says of a message: `listed` (on the list and authenticated for it), `allowed`
 * (anyone may send, not listed), or why it is held: `unlisted`, or `unauthenticated` (on the
 * list, but nothing shows the From is true).
 */
export type SenderStanding = 'listed' | 'allowed' | 'unlisted' | 'unauthenticated';

export function senderStanding(policy: SenderPolicy, verdict: SenderVerdict): SenderStanding {
  const onList = isListed(policy.senders, verdict.from);
  if (onList && verdict.authenticated) return 'listed';
  if (policy.policy === 'anyone') return 'allowed';
  return onList ? 'unauthenticated' : 'unlisted';
}
