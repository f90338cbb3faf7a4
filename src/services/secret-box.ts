// Secrets the service must read back (TOTP keys), encrypted at rest with AES-256-GCM from
// node:crypto. The key is SHA-256 of SECRETS_KEY (or of the one generated into DATA_DIR); the
// row's id is the additional data, so a sealed value copied onto another row does not open.
// Stored form: `v1:` + base64url(12-byte IV | 16-byte tag | ciphertext); a clear TOTP key
// (base32, upper case) can never look like one.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'v1:';

export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(secret, 'utf8').digest();
  }

  static isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The clear value; throws when the value was sealed with another key or for another context. */
  open(stored: string, context: string): string {
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12)).setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
