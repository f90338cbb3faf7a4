// The networks (CIDR blocks) an upload key may be used from: checked when the key is made, and
// on every use against the client's address (IPv4, IPv6 and IPv4-mapped IPv6 alike).
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../domain/errors.ts';
import { MAX_UPLOAD_KEY_NETWORKS } from '../domain/upload-keys.ts';

const parseCidr = (text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined => {
  const m = /^([^/\s]+)(?:\/(\d{1,3}))?$/.exec(text.trim());
  const version = m ? isIP(m[1]) : 0;
  if (!m || !version) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? max : Number(m[2]);
  return prefix <= max ? { address: m[1].toLowerCase(), prefix, family: version === 4 ? 'ipv4' : 'ipv6' } : undefined;
};

/** The networks as stored (`a.b.c.d/n`, a bare address as /32 or /128); refuses anything else (400, field Networks). */
export function normalizeNetworks(input: unknown): string[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw DomainError.invalid('Field networks must be a list of networks in CIDR notation, such as "192.0.2.0/24"', 'networks');
  if (input.length > MAX_UPLOAD_KEY_NETWORKS) throw DomainError.invalid(`Field networks may name at most ${MAX_UPLOAD_KEY_NETWORKS} networks`, 'networks');
  const out = input.map((n) => {
    const c = typeof n === 'string' ? parseCidr(n) : undefined;
    if (!c)
      throw DomainError.invalid(
        `Field networks: ${JSON.stringify(n)} is not a network in CIDR notation, such as "192.0.2.0/24" or "2001:db8::/32"`,
        'networks',
      );
    return `${c.address}/${c.prefix}`;
  });
  return [...new Set(out)];
}

const lists = new Map<string, BlockList>();
/** Whether `address` lies in one of `networks` (an empty list: anywhere). */
export function allowedFrom(networks: readonly string[], address: string | null | undefined): boolean {
  if (networks.length === 0) return true;
  if (!address) return false;
  const key = networks.join(',');
  let list = lists.get(key);
  if (!list) {
    list = new BlockList();
    for (const n of networks) {
      const c = parseCidr(n);
      if (c) list.addSubnet(c.address, c.prefix, c.family);
    }
    if (lists.size > 1000) lists.clear();
    lists.set(key, list);
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? mapped[1] : address;
  const version = isIP(plain);
  return version !== 0 && list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
}
