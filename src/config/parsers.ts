// The parsers of config.ts's settings: each turns an environment variable's text into a value or
// throws a message that names the variable.
import { isIP } from 'node:net';

export type Parser<T> = (raw: string, name: string) => T;

export interface Setting<T> {
  env: string;
  parse: Parser<T>;
  fallback?: T;
  secret?: boolean;
}

export const str = (): Parser<string> => (raw) => raw;
export const int = (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> => (raw, name) => {
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
};
// rate-limiter-flexible keeps its Redis windows in whole seconds
export const wholeSeconds = (): Parser<number> => (raw, name) => {
  const n = int(1000)(raw, name);
  if (n % 1000) throw new Error(`${name} must be whole seconds (a multiple of 1000), got ${n}`);
  return n;
};
export const bool = (): Parser<boolean> => (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
};
export const url = (...protocols: string[]): Parser<string> => (raw, name) => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} must be a URL (${protocols.join(', ')}), got an unparsable value`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new Error(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
};
export const oneOf = <T extends string>(...values: T[]): Parser<T> => (raw, name) => {
  if (!values.includes(raw as T)) throw new Error(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
};
export const hostPorts = (): Parser<{ host: string; port: number }[]> => (raw, name) =>
  raw.split(',').map((part) => {
    const m = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(part);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new Error(`${name} must be host:port pairs separated by commas, got "${part}"`);
    return { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  });
/** `host:port` of a listener, or `off` */
export const listenAddress = (): Parser<{ host: string; port: number } | 'off'> => (raw, name) => {
  if (raw.trim().toLowerCase() === 'off') return 'off';
  const parsed = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(raw);
  if (!parsed || Number(parsed[2]) > 65535) throw new Error(`${name} must be host:port or off, got "${raw}"`);
  return { host: parsed[1].replace(/^\[|\]$/g, ''), port: Number(parsed[2]) };
};
export const amount = (): Parser<number> => (raw, name) => {
  if (!/^\d{1,13}(\.\d{1,2})?$/.test(raw)) throw new Error(`${name} must be an amount like 9999999.99, got "${raw}"`);
  return Math.round(Number(raw) * 100);
};
export const portRange = (): Parser<[number, number]> => (raw, name) => {
  const m = /^(\d+)-(\d+)$/.exec(raw.trim());
  if (!m || Number(m[1]) > Number(m[2]) || Number(m[1]) < 1 || Number(m[2]) > 65535) {
    throw new Error(`${name} must be a port range like 30000-30100, got "${raw}"`);
  }
  return [Number(m[1]), Number(m[2])];
};
/** off (default), a hop count, or the balancers' addresses/CIDRs: whom X-Forwarded-* is believed from */
export const trustProxy = (): Parser<false | number | string[]> => (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (['false', 'off', 'no', '0'].includes(v)) return false;
  if (/^\d+$/.test(v)) return Number(v);
  const list = v.split(',').map((a) => a.trim()).filter(Boolean);
  const addr = /^([0-9a-f:.]+)(\/\d{1,3})?$/;
  if (list.length === 0 || list.some((a) => !addr.test(a) || !isIP(a.split('/')[0]))) {
    throw new Error(`${name} must be off, a hop count, or the load balancers' addresses (e.g. 10.0.0.5,10.1.0.0/16), got "${raw}"`);
  }
  return list;
};
export const optional = <T>(p: Parser<T>): Parser<T | undefined> => (raw, name) => (raw === '' ? undefined : p(raw, name));
