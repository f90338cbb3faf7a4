// Where webhooks may go. Live endpoints must be https and may not reach the service's own
// network: loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
// multicast, reserved, in IPv4 and IPv6 and in every IPv6 form that carries an IPv4 address. The address is checked when the URL is saved and again at every delivery,
// on the very address the connection uses (safeLookup), so a DNS answer that changes later
// (rebinding) gains nothing. WEBHOOK_ALLOW_PRIVATE=true lifts both rules (development, tests).
import dns from 'node:dns';
import net from 'node:net';
import { DomainError } from '../domain/errors.ts';
import type { Mode } from '../domain/scope.ts';

// IANA's IPv4 special-purpose registry, multicast and reserved (224/3 covers 240/4 and broadcast)
const blockedV4 = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const)
  blockedV4.addSubnet(prefix, bits, 'ipv4');
// Azure's wire server answers on a public address inside every VM
blockedV4.addAddress('168.63.129.16', 'ipv4');

// IPv6: only global unicast (2000::/3) may be reached, less its special-purpose blocks. Everything
// outside it is refused: loopback, unspecified, IPv4-compatible (::/96, deprecated), local-use
// NAT64 (64:ff9b:1::/48), ULA, link- and site-local, multicast, discard-only, SRv6, reserved.
// The forms that carry an IPv4 address for a host (below) are judged by that address instead.
const globalV6 = new net.BlockList();
globalV6.addSubnet('2000::', 3, 'ipv6');
const blockedV6 = new net.BlockList();
// 2001::/23 IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, ...), documentation (two)
for (const [prefix, bits] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const)
  blockedV6.addSubnet(prefix, bits, 'ipv6');

/** The 16 bytes of an IPv6 address (net.isIPv6 true, no zone), `::` and a dotted tail expanded. */
function ipv6Bytes(addr: string): Buffer {
  let text = addr;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array(missing).fill('0'), ...groups(tail)];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

const v4At = (b: Buffer, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const zeros = (b: Buffer, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 address an IPv6 one stands for: mapped (::ffff:0:0/96), translated (::ffff:0:0:0/96),
 * NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16, the relay's own v4 address).
 */
function embeddedV4(addr: string): string | undefined {
  const b = ipv6Bytes(addr);
  if (zeros(b, 0, 10) && b.readUInt16BE(10) === 0xffff) return v4At(b, 12);
  if (zeros(b, 0, 8) && b.readUInt16BE(8) === 0xffff && zeros(b, 10, 12)) return v4At(b, 12);
  if (b.readUInt32BE(0) === 0x0064ff9b && zeros(b, 4, 12)) return v4At(b, 12);
  if (b.readUInt16BE(0) === 0x2002) return v4At(b, 2);
  return undefined;
}

/** Whether an IP address is one webhooks may not reach. */
export function isBlockedAddress(addr: string): boolean {
  if (net.isIPv4(addr)) return blockedV4.check(addr, 'ipv4');
  // a zone (fe80::1%eth0) is only ever on a local link
  if (!net.isIPv6(addr) || addr.includes('%')) return true;
  const v4 = embeddedV4(addr);
  if (v4) return blockedV4.check(v4, 'ipv4');
  return !globalV6.check(addr, 'ipv6') || blockedV6.check(addr, 'ipv6');
}

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: http and any address, in both modes */
  allowPrivate: boolean;
}

/** The URL's problem for this mode, in words for people; undefined when it may be used. */
export function urlProblem(raw: string, mode: Mode, policy: UrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The URL is not valid';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The URL must start with https://';
  if (url.username || url.password) return 'The URL may not carry a user name or password';
  if (policy.allowPrivate) return undefined;
  if (mode === 'live' && url.protocol !== 'https:') return 'Live-mode webhook URLs must use https://';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && isBlockedAddress(host)) return `The address ${host} is loopback, private, link-local or reserved`;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'The host localhost is not reachable from here';
  return undefined;
}

/** Refuses a URL that the mode does not allow, and (unless allowed) one whose name resolves to a blocked address. */
export async function checkWebhookUrl(raw: string, mode: Mode, policy: UrlPolicy, field = 'url'): Promise<void> {
  const problem = urlProblem(raw, mode, policy);
  if (problem) throw DomainError.unprocessable(problem, field);
  if (policy.allowPrivate) return;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) return;
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw DomainError.unprocessable(`The host ${host} does not resolve`, field);
  }
  const bad = addresses.find((a) => isBlockedAddress(a.address));
  if (bad) throw DomainError.unprocessable(`The host ${host} resolves to ${bad.address}, a loopback, private, link-local or reserved address`, field);
}

/**
 * A `lookup` for http.request that refuses blocked addresses: the connection goes to the address
 * checked here, never to one from a second resolution.
 */
export function safeLookup(policy: UrlPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses: dns.LookupAddress[]) => {
      // biome-ignore lint/suspicious/noExplicitAny: node:dns's lookup callback is overloaded by options.all
      if (err) return (callback as any)(err);
      const usable = policy.allowPrivate ? addresses : addresses.filter((a) => !isBlockedAddress(a.address));
      if (usable.length === 0) {
        const e = Object.assign(new Error(`${hostname} resolves only to loopback, private, link-local or reserved addresses`), { code: 'EBLOCKEDADDRESS' });
        // biome-ignore lint/suspicious/noExplicitAny: node:dns's lookup callback is overloaded by options.all
        return (callback as any)(e);
      }
      // biome-ignore lint/suspicious/noExplicitAny: node:dns's lookup callback is overloaded by options.all
      if ((options as dns.LookupOptions).all) return (callback as any)(null, usable);
      // biome-ignore lint/suspicious/noExplicitAny: node:dns's lookup callback is overloaded by options.all
      (callback as any)(null, usable[0].address, usable[0].family);
    });
  };
}
