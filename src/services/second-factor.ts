// The optional TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s), through the otpauth library.
// A code is accepted one step either side of now (clock drift) and only once: the caller keeps
// the step of the last accepted code and refuses any step not after it.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const ISSUER = 'invoice-intake';
const WINDOW = 1;

const totp = (secret: string, label = '') => new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten recovery codes (xxxxx-xxxxx, 48 bits each, no look-alike characters). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: 10 }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A typed recovery code in the stored form, or undefined when it does not look like one. */
export function normalRecoveryCode(code: string): string | undefined {
  const c = code.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z0-9]{10}$/.test(c) ? `${c.slice(0, 5)}-${c.slice(5)}` : undefined;
}

/** A new random secret (160 bits), base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** Whether a secret sent back by the set-up form has the shape newTotpSecret gives. */
export const isTotpSecret = (secret: string): boolean => /^[A-Z2-7]{32}$/.test(secret);

/** The otpauth:// URI an authenticator app reads from the QR code. */
export const totpUri = (secret: string, email: string): string => totp(secret, email).toString();

/** The 30-second step the code belongs to, or undefined when it is not a current code. */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totp(secret).validate({ token, timestamp: now, window: WINDOW });
  return delta === null ? undefined : Math.floor(now / 30_000) + delta;
}
