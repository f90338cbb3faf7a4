import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random base62 text of `length` characters (rejection sampling keeps it uniform). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

export type IdPrefix = 'acc' | 'cst' | 'inv' | 'pay' | 'doc' | 'imp' | 'msg';

/** Prefixed ids of 24 characters, well under the spec's 36. */
export const newId = (prefix: IdPrefix) => `${prefix}_${randomToken(20)}`;
