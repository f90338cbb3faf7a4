// Where webhooks may go. Live endpoints must be https and may not reach the service's own
// network: loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
// multicast, reserved. The address is checked when the URL is saved and again at every delivery,
// on the very address the connection uses (safeLookup), so a DNS answer that changes later
// (rebinding) gains nothing. WEBHOOK_ALLOW_PRIVATE=true lifts both rules (development, tests).
import dns from 'node:dns';
import net from 'node:net';
import { DomainError } from '../domain/errors.ts';
import type { Mode } from '../domain/scope.ts';

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
] as const) blocked.addSubnet(prefix, bits, 'ipv4');
// Azure's wire server answers on a public address inside every VM
blocked.addAddress('168.63.129.16', 'ipv4');
for (const [prefix, bits] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64]] as const) blocked.addSubnet(prefix, bits, 'ipv6');

/** IPv4 inside IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d) is judged as the IPv4 address. */
function embeddedV4(addr: string): string | undefined {
  const m = /^(?:::ffff:|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (m) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(addr);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an IP address is one webhooks may not reach. */
export function isBlockedAddress(addr: string): boolean {
  const v4 = net.isIPv4(addr) ? addr : embeddedV4(addr);
  if (v4) return blocked.check(v4, 'ipv4');
  return net.isIPv6(addr) ? blocked.check(addr, 'ipv6') : true;
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
      if (err) return (callback as any)(err);
      const usable = policy.allowPrivate ? addresses : addresses.filter((a) => !isBlockedAddress(a.address));
      if (usable.length === 0) {
        const e = Object.assign(new Error(`${hostname} resolves only to loopback, private, link-local or reserved addresses`), { code: 'EBLOCKEDADDRESS' });
        return (callback as any)(e);
      }
      if ((options as dns.LookupOptions).all) return (callback as any)(null, usable);
      (callback as any)(null, usable[0].address, usable[0].family);
    });
  };
}
