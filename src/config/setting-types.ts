// The kinds of value a setting holds, and `setting()`, which makes one TypeBox schema of a setting.
// An environment variable is text, so each schema is a string refined by its kind's check (whose
// message TypeBox's Value.Errors reports) and decoded into the kind's value (its schema's Decode,
// and `decoderOf` for config.ts, which decodes the checked text itself). We do not let
// Value.Convert coerce numbers: it reads PORT=1.5 as 1 and PORT= as 0.
import { isIP } from 'node:net';
import type { TCodec, TOptional, TSchema, TString } from 'typebox';
import { Type } from './typebox.ts';

/** What one kind of setting accepts (`form`, for the docs), its check and its decoded value. */
export interface Kind<T> {
  form: string;
  /** the problem with `raw` ("must be ..."), or undefined; `shown` is raw as it may be shown */
  problem(raw: string, shown: string): string | undefined;
  decode(raw: string): T;
}

/** A setting's annotations, kept on its schema (docs/configuration.md is written from them). */
export interface SettingMeta {
  env: string;
  doc: string;
  /** the value when unset, as it is written in the environment; none: the setting is optional */
  default?: string;
  /** a problem never shows its value (passwords, tokens, URLs with credentials) */
  secret?: boolean;
  /** older names still read when `env` is unset (`env` wins when both are set) */
  aliases?: string[];
  /** an example value of an optional setting (config/example.env shows it commented out) */
  example?: string;
}

export type SettingSchema<T> = TCodec<TString, T> & { 'x-setting': SettingMeta };

/** Each setting's decode, by its annotations (the one object every copy of its schema shares). */
const decoders = new WeakMap<SettingMeta, (raw: string) => unknown>();

/** The decode of the setting with these annotations (its kind's). */
export function decoderOf(meta: SettingMeta): (raw: string) => unknown {
  const decode = decoders.get(meta);
  if (!decode) throw new Error(`${meta.env} was not made by setting()`);
  return decode;
}

export function setting<T>(kind: Kind<T>, meta: SettingMeta & { default: string }): SettingSchema<T>;
export function setting<T>(kind: Kind<T>, meta: SettingMeta): TOptional<SettingSchema<T>>;
export function setting<T>(kind: Kind<T>, meta: SettingMeta): TSchema {
  const text = Type.String({ description: meta.doc, ...(meta.default !== undefined && { default: meta.default }), 'x-setting': meta, 'x-form': kind.form });
  const checked = Type.Refine(
    text,
    (raw: string) => kind.problem(raw, '') === undefined,
    (raw: string) => kind.problem(raw, meta.secret ? 'a hidden value' : `"${raw}"`) ?? '',
  );
  const schema = Type.Decode(checked, (raw: string) => kind.decode(raw));
  decoders.set(meta, (raw) => kind.decode(raw));
  return meta.default === undefined ? Type.Optional(schema) : schema;
}

export const text = (form = 'text'): Kind<string> => ({ form, problem: () => undefined, decode: (raw) => raw });

export const whole = (min: number, max = Number.MAX_SAFE_INTEGER): Kind<number> => ({
  form: max === Number.MAX_SAFE_INTEGER ? `whole number, at least ${min}` : `whole number, ${min} to ${max}`,
  problem(raw, shown) {
    if (!/^-?\d+$/.test(raw.trim())) return `must be a whole number, got ${shown}`;
    const n = Number(raw);
    return n < min || n > max ? `must be between ${min} and ${max}, got ${n}` : undefined;
  },
  decode: Number,
});

/** rate-limiter-flexible keeps its Redis windows in whole seconds */
export const wholeSeconds = (): Kind<number> => ({
  form: 'milliseconds, a multiple of 1000',
  problem(raw, shown) {
    const wrong = whole(1000).problem(raw, shown);
    if (wrong) return wrong;
    return Number(raw) % 1000 ? `must be whole seconds (a multiple of 1000), got ${Number(raw)}` : undefined;
  },
  decode: Number,
});

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];
export const flag = (): Kind<boolean> => ({
  form: 'true or false (also yes/no, on/off, 1/0)',
  problem: (raw, shown) => ([...TRUE, ...FALSE].includes(raw.trim().toLowerCase()) ? undefined : `must be true or false, got ${shown}`),
  decode: (raw) => TRUE.includes(raw.trim().toLowerCase()),
});

export const url = (...protocols: string[]): Kind<string> => ({
  form: `URL (${protocols.join(', ')})`,
  problem(raw) {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      return `must be a URL (${protocols.join(', ')}), got an unparsable value`; // never the value: it may hold a password
    }
    return protocols.includes(parsed.protocol.replace(/:$/, '')) ? undefined : `must use ${protocols.join(' or ')}, got ${parsed.protocol}`;
  },
  decode: (raw) => raw,
});

export const oneOf = <T extends string>(...values: T[]): Kind<T> => ({
  form: values.join(', '),
  problem: (raw, shown) => (values.includes(raw as T) ? undefined : `must be one of ${values.join(', ')}, got ${shown}`),
  decode: (raw) => raw as T,
});

export const oneOfList = <T extends string>(values: readonly T[]): Kind<T[]> => ({
  form: `comma-separated, among ${values.join(', ')}`,
  problem(raw, shown) {
    const list = raw
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    return list.length === 0 || list.some((r) => !values.includes(r as T)) ? `must list roles among ${values.join(', ')}, got ${shown}` : undefined;
  },
  decode: (raw) =>
    [
      ...new Set(
        raw
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean),
      ),
    ] as T[],
});

const HOST_PORT = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/;
const hostPort = (m: RegExpExecArray) => ({ host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) });

export const hostPorts = (): Kind<{ host: string; port: number }[]> => ({
  form: 'host:port,host:port,...',
  problem(raw) {
    const bad = raw.split(',').find((part) => {
      const m = HOST_PORT.exec(part);
      return !m || Number(m[2]) < 1 || Number(m[2]) > 65535;
    });
    return bad === undefined ? undefined : `must be host:port pairs separated by commas, got "${bad}"`;
  },
  decode: (raw) => raw.split(',').map((part) => hostPort(HOST_PORT.exec(part)!)),
});

/** `host:port` of a listener, or `off` */
export const listenAddress = (): Kind<{ host: string; port: number } | 'off'> => ({
  form: 'host:port, or off',
  problem(raw, shown) {
    if (raw.trim().toLowerCase() === 'off') return undefined;
    const m = HOST_PORT.exec(raw);
    return !m || Number(m[2]) > 65535 ? `must be host:port or off, got ${shown}` : undefined;
  },
  decode: (raw) => (raw.trim().toLowerCase() === 'off' ? 'off' : hostPort(HOST_PORT.exec(raw)!)),
});

/** an amount in euros (two decimals at most), held in cents */
export const amount = (): Kind<number> => ({
  form: 'amount, e.g. 9999999.99',
  problem: (raw, shown) => (/^\d{1,13}(\.\d{1,2})?$/.test(raw) ? undefined : `must be an amount like 9999999.99, got ${shown}`),
  decode: (raw) => Math.round(Number(raw) * 100),
});

export const portRange = (): Kind<[number, number]> => ({
  form: 'port range, e.g. 30000-30100',
  problem(raw, shown) {
    const m = /^(\d+)-(\d+)$/.exec(raw.trim());
    return !m || Number(m[1]) > Number(m[2]) || Number(m[1]) < 1 || Number(m[2]) > 65535 ? `must be a port range like 30000-30100, got ${shown}` : undefined;
  },
  decode: (raw) => raw.trim().split('-').map(Number) as [number, number],
});

const OFF = ['false', 'off', 'no', '0'];
const PROXY = /^([0-9a-f:.]+)(\/\d{1,3})?$/;
const proxyList = (raw: string) =>
  raw
    .trim()
    .toLowerCase()
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
/** off, a hop count, or the balancers' addresses/CIDRs: whom X-Forwarded-* is believed from */
export const trustProxy = (): Kind<false | number | string[]> => ({
  form: 'off, a hop count, or addresses/CIDRs',
  problem(raw, shown) {
    const v = raw.trim().toLowerCase();
    if (OFF.includes(v) || /^\d+$/.test(v)) return undefined;
    const list = proxyList(raw);
    if (list.length && list.every((a) => PROXY.test(a) && isIP(a.split('/')[0]))) return undefined;
    return `must be off, a hop count, or the load balancers' addresses (e.g. 10.0.0.5,10.1.0.0/16), got ${shown}`;
  },
  decode(raw) {
    const v = raw.trim().toLowerCase();
    if (OFF.includes(v)) return false;
    return /^\d+$/.test(v) ? Number(v) : proxyList(raw);
  },
});

/** a key of at least 32 characters (the value is never shown) */
export const longSecret = (): Kind<string> => ({
  form: 'at least 32 random characters',
  problem: (raw) => (raw.trim().length < 32 ? 'must be at least 32 random characters (e.g. openssl rand -base64 32)' : undefined),
  decode: (raw) => raw.trim(),
});
