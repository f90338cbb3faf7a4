// Whether an encrypted PDF opens without a password: the standard security handler's user
// password check (ISO 32000-2, 7.6.4) with the empty password. A PDF with only an owner password
// (permissions) opens; one with a user password cannot be read by anyone but its recipient.
// pdf-lib parses encrypted files but never checks passwords, so this small check is ours. Pure.
import { createCipheriv, createHash } from 'node:crypto';

/** The encryption dictionary's fields that the check needs, and the first element of the trailer's /ID. */
export interface StandardSecurity {
  filter: string;
  r: number;
  /** key length in bits (/Length; 40 when absent) */
  length: number;
  o: Uint8Array;
  u: Uint8Array;
  p: number;
  encryptMetadata: boolean;
  id0: Uint8Array;
}

const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const md5 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('md5')).digest();
const sha256 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();

/** RC4 (revisions 2-4); OpenSSL 3 no longer offers it by default, and it is ten lines. */
function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
    out[k] = data[k] ^ s[(s[i] + s[j]) & 255];
  }
  return out;
}

/** Algorithm 2.B (revision 6) for the empty password and no user data. */
function hashR6(salt: Uint8Array): Buffer {
  let k = sha256(salt);
  let e = Buffer.alloc(0);
  for (let round = 0; round < 64 || e[e.length - 1] > round - 32; round++) {
    const k1 = Buffer.concat(Array(64).fill(k));
    const aes = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    e = Buffer.concat([aes.update(k1), aes.final()]);
    // the first 16 bytes as a big-endian number mod 3 equals their sum mod 3 (256 = 1 mod 3)
    const pick = e.subarray(0, 16).reduce((sum, b) => sum + b, 0) % 3;
    k = createHash(['sha256', 'sha384', 'sha512'][pick]).update(e).digest();
  }
  return k.subarray(0, 32);
}

export function opensWithoutPassword(sec: StandardSecurity): boolean {
  // other handlers (public-key certificates) always need something the sender holds
  if (sec.filter !== 'Standard') return false;
  const u = Buffer.from(sec.u);
  if (sec.r >= 5) {
    const salt = u.subarray(32, 40);
    return (sec.r === 5 ? sha256(salt) : hashR6(salt)).equals(u.subarray(0, 32));
  }
  const n = sec.r === 2 ? 5 : Math.floor(sec.length / 8);
  const p = Buffer.alloc(4);
  p.writeInt32LE(sec.p | 0);
  const noMetadata = sec.r >= 4 && !sec.encryptMetadata ? [Buffer.from([255, 255, 255, 255])] : [];
  let key = md5(PAD, sec.o.subarray(0, 32), p, sec.id0, ...noMetadata).subarray(0, n);
  if (sec.r >= 3) for (let i = 0; i < 50; i++) key = md5(key).subarray(0, n);
  if (sec.r === 2) return rc4(key, PAD).equals(u.subarray(0, 32));
  let x = rc4(key, md5(PAD, sec.id0));
  for (let i = 1; i <= 19; i++)
    x = rc4(
      key.map((b) => b ^ i),
      x,
    );
  return x.equals(u.subarray(0, 16));
}
