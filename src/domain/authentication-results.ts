// The mailbox server's word on who sent a message read by IMAP: its Authentication-Results
// header (RFC 8601), believed only when it carries the authserv-id the operator trusts
// (IMAP_AUTHSERV_ID). Anyone can write such a header into a message: one with another id, or one
// below a header of another server, is ignored. Pure.
import { uncheckedVerdict, type AuthResult, type SenderVerdict } from './sender-verdict.ts';

interface AuthMethodResult {
  method: string;
  result: AuthResult;
  /** ptype.property=value, e.g. `smtp.mailfrom`, `header.d`, `header.from`; keys lower-cased */
  props: Record<string, string>;
}

export interface AuthenticationResults {
  /** lower-cased */
  authservId: string;
  results: AuthMethodResult[];
}

const RESULTS = new Set<AuthResult>(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy']);

/** Drops RFC 5322 comments (nested parentheses), outside quoted strings. */
function stripComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\' && i + 1 < value.length) {
      if (!depth) out += c + value[i + 1];
      i++;
    } else if (quoted) {
      out += c;
      if (c === '"') quoted = false;
    } else if (c === '(') depth++;
    else if (c === ')' && depth) depth--;
    else if (!depth) {
      if (c === '"') quoted = true;
      out += c;
    }
  }
  return out;
}

/** Splits on `;` outside quoted strings. */
function splitClauses(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const c of value) {
    if (c === '"') quoted = !quoted;
    if (c === ';' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim());
}

const unquote = (s: string) => (s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1).replace(/\\(.)/g, '$1') : s);

/** Parses one header value; undefined when it has no authserv-id. Unknown methods and results are kept or skipped, never thrown. */
export function parseAuthenticationResults(value: string): AuthenticationResults | undefined {
  const [head, ...clauses] = splitClauses(stripComments(value.replace(/\r?\n[ \t]+/g, ' ')));
  // `authserv-id [version]`
  const authservId = unquote(head.split(/\s+/)[0] ?? '').toLowerCase();
  if (!authservId) return undefined;
  const results: AuthMethodResult[] = [];
  for (const clause of clauses) {
    const tokens = clause.match(/(?:[^\s"=]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^\s"]+))|\S+/g) ?? [];
    const first = /^([a-z0-9_-]+)(?:\/\d+)?\s*=\s*([a-z]+)$/i.exec(tokens[0] ?? '');
    if (!first) continue; // `none`, or something unreadable
    const result = first[2].toLowerCase() as AuthResult;
    if (!RESULTS.has(result)) continue;
    const props: Record<string, string> = {};
    for (const t of tokens.slice(1)) {
      const m = /^([a-z0-9_-]+\.[a-z0-9_.-]+)\s*=\s*(.+)$/i.exec(t);
      if (m) props[m[1].toLowerCase()] ??= unquote(m[2]);
    }
    results.push({ method: first[1].toLowerCase(), result, props });
  }
  return { authservId, results };
}

/** The domain after the last `@`, trailing `>` and blanks cut (a loop: /[>\s]+$/ is quadratic on a long run of them). */
function domainOf(address: string): string {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  let end = domain.length;
  while (end > 0 && /[>\s]/.test(domain[end - 1])) end--;
  return domain.slice(0, end);
}

/**
 * Relaxed alignment (RFC 7489 3.1) without the public suffix list: one domain is the other or a
 * subdomain of it. Siblings (a.example and b.example) do not align here: stricter, never looser.
 */
export function aligned(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (!x || !y) return false;
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}

/**
 * The verdict of a message read by IMAP. `headers`: its Authentication-Results values, topmost
 * first. Only the run of headers with the trusted id at the top counts (the server adds its own
 * above what the message brought; several milters may each add one); unset id: trust none.
 */
export function imapHeaderVerdict(headers: string[], from: string, trustedId: string | undefined): SenderVerdict {
  const none = uncheckedVerdict(from);
  if (!trustedId) return none;
  const trusted: AuthMethodResult[] = [];
  for (const h of headers) {
    const parsed = parseAuthenticationResults(h);
    if (!parsed || parsed.authservId !== trustedId.toLowerCase()) break;
    trusted.push(...parsed.results);
  }
  if (!trusted.length) return none;
  const fromDomain = from.includes('@') ? domainOf(from) : '';
  const firstOf = (method: string) => trusted.find((r) => r.method === method);
  const spf = firstOf('spf');
  const spfDomain = spf ? domainOf(spf.props['smtp.mailfrom'] ?? spf.props['smtp.helo'] ?? '') : '';
  const dkimPassDomains = [
    ...new Set(
      trusted
        .filter((r) => r.method === 'dkim' && r.result === 'pass')
        .map((r) => domainOf(r.props['header.d'] ?? r.props['header.i'] ?? ''))
        .filter(Boolean),
    ),
  ];
  const dmarc = firstOf('dmarc');
  // a DMARC pass counts for the From it was checked against (header.from), when the header says it
  const dmarcFor = dmarc?.props['header.from']?.toLowerCase();
  const dmarcPass = dmarc?.result === 'pass' && (!dmarcFor || dmarcFor === fromDomain);
  const authenticated =
    Boolean(fromDomain) && (dmarcPass || (spf?.result === 'pass' && aligned(spfDomain, fromDomain)) || dkimPassDomains.some((d) => aligned(d, fromDomain)));
  return {
    source: 'imap-header',
    from: none.from,
    spf: spf?.result ?? 'none',
    spfDomain,
    dkimPassDomains,
    dmarc: dmarc?.result ?? 'none',
    arc: firstOf('arc')?.result ?? 'none',
    authenticated,
  };
}
