// Who sent a message that came in by SMTP: SPF (client address, HELO, MAIL FROM), DKIM, DMARC
// and ARC through mailauth, told in the one shape policy and replies decide on (SenderVerdict).
// DNS goes to DNS_SERVERS when set (tests serve their records from a dnsmasq on loopback), its
// answers kept for DNS_CACHE_MS (dns-cache.ts).
import { Resolver } from 'node:dns/promises';
import { authenticate, type AuthenticateResult } from 'mailauth';
import type { AuthResult, SenderVerdict } from '../../domain/sender-verdict.ts';
import { cachedResolver } from './dns-cache.ts';

export interface SenderCheckSettings {
  /** host:port pairs; unset: the system's resolver */
  dnsServers?: { host: string; port: number }[];
  /** the receiving host's name (authserv-id of the results) */
  hostname: string;
  /** per DNS query */
  dnsTimeoutMs?: number;
  /** how long DNS answers are kept (0: not at all) */
  dnsCacheMs?: number;
}

interface SmtpSession {
  clientIp: string;
  helo: string | null;
  /** MAIL FROM ('' for a bounce) */
  mailFrom: string;
}

export type SenderCheck = (raw: Buffer, session: SmtpSession) => Promise<SenderVerdict>;

const KNOWN: AuthResult[] = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'];

/** mailauth's result keyword in ours ('temperr' is its old spelling; skipped and declined are none). */
export function authResult(value: string | undefined): AuthResult {
  if (value === 'temperr') return 'temperror';
  return KNOWN.includes(value as AuthResult) ? (value as AuthResult) : 'none';
}

/** Relaxed alignment without a public-suffix list: the same domain, or one inside the other. */
const aligned = (a: string, b: string) => Boolean(a && b) && (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`));

/** The verdict from mailauth's results. Pure. */
export function verdictOf(result: Pick<AuthenticateResult, 'spf' | 'dkim' | 'dmarc' | 'arc'>): SenderVerdict {
  // more than one From address (or From field) authenticates none of them
  const from = result.dkim.headerFrom[0] ?? '';
  const single = result.dkim.headerFrom.length === 1 && result.dkim.fromFields <= 1;
  const fromDomain = from.includes('@') ? from.slice(from.lastIndexOf('@') + 1).toLowerCase() : '';
  const spf = result.spf ? authResult(result.spf.status.result) : 'none';
  const spfDomain = result.spf ? (result.spf.domain ?? '').toLowerCase() : '';
  const dkimPassDomains = [
    ...new Set(result.dkim.results.filter((r) => r.status.result === 'pass' && r.signingDomain).map((r) => r.signingDomain!.toLowerCase())),
  ];
  const dmarc = result.dmarc ? authResult(result.dmarc.status.result) : 'none';
  const arc = result.arc ? authResult(result.arc.status.result) : 'none';
  const authenticated =
    single &&
    Boolean(fromDomain) &&
    (dmarc === 'pass' || (spf === 'pass' && aligned(spfDomain, fromDomain)) || dkimPassDomains.some((d) => aligned(d, fromDomain)));
  return { source: 'smtp', from: from.toLowerCase(), spf, spfDomain, dkimPassDomains, dmarc, arc, authenticated };
}

/** A resolver for mailauth: DNS_SERVERS (or the system's), answers as dns.promises.resolve gives them. */
export function dnsResolver(settings: Pick<SenderCheckSettings, 'dnsServers' | 'dnsTimeoutMs'>) {
  const resolver = new Resolver({ timeout: settings.dnsTimeoutMs ?? 3000, tries: 2 });
  if (settings.dnsServers?.length)
    resolver.setServers(settings.dnsServers.map((s) => (s.host.includes(':') ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`)));
  return (name: string, rrtype: string) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
}

/** The check our receiver runs on each message before it commits it. */
export function senderCheck(settings: SenderCheckSettings): SenderCheck {
  const resolver = cachedResolver(dnsResolver(settings), { ttlMs: settings.dnsCacheMs ?? 0 });
  return async (raw, session) => {
    const result = await authenticate(raw, {
      ip: session.clientIp,
      helo: session.helo ?? undefined,
      sender: session.mailFrom,
      mta: settings.hostname,
      resolver,
      disableBimi: true,
    });
    return verdictOf(result);
  };
}
