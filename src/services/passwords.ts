// Passwords hashed with scrypt (node:crypto, memory-hard): N=2^15, r=8, p=1 (32 MB, ~50 ms),
// stored as scrypt$N$r$p$salt$hash so the parameters can grow later without breaking old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 10;

const derive = (password: string, salt: Buffer, o: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...o, maxmem: 128 * o.N! * o.r! * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  );

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = stored.split('$');
  if (kind !== 'scrypt' || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;
/** A hash to verify against when the e-mail is unknown, so both cases take as long. */
export const dummyHash = () => (dummy ??= hashPassword(randomBytes(12).toString('base64')));
