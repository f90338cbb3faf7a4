// The optional TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s), through the otpauth library.
// A code is accepted one step either side of now (clock drift) and only once: the caller keeps
// the step of the last accepted code and refuses any step not after it.
import { Secret, TOTP } from 'otpauth';

const ISSUER = 'invoice-intake';
const WINDOW = 1;

const totp = (secret: string, label = '') => new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });

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
