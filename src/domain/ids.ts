import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

// CSPRNG bytes drawn 4 KB at a time: one randomBytes call per request is measurable on the hot
// path (every created object gets an id); the bytes are as random either way.
let pool = Buffer.alloc(0);
let pos = 0;
function randomByte(): number {
  if (pos >= pool.length) {
    pool = randomBytes(4096);
    pos = 0;
  }
  return pool[pos++];
}

/** Random base62 text of `length` characters (rejection sampling keeps it uniform). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export type IdPrefix = 'acc' | 'cst' | 'inv' | 'pay' | 'doc' | 'imp' | 'msg' | 'ssk' | 'whk' | 'evt' | 'dlv' | 'usr' | 'trl' | 'upk';

/** Prefixed ids of 24 characters, well under the spec's 36. */
export const newId = (prefix: IdPrefix) => `${prefix}_${randomToken(20)}`;
