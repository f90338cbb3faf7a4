// SSH public keys as people paste them (`ssh-ed25519 AAAA... comment`) and as SSH carries them
// (the key blob): which algorithms we accept, and the SHA-256 fingerprint OpenSSH shows. Reading
// a key line takes ssh2, an I/O library: formats/ssh-key-parser.ts does that.
import { createHash } from 'node:crypto';

/** Key types an account may register; RSA keys must sign with SHA-2 (rsa-sha2-256/512). */
export const SSH_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'] as const;

export interface SshPublicKey {
  type: string;
  /** the key blob (RFC 4253 public key format) */
  blob: Buffer;
  comment: string;
  fingerprint: string;
}

/** `SHA256:<base64 without padding>`, as `ssh-keygen -lf` and `ssh` print it. */
export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Whether a signature made with this algorithm may log in: `ssh-rsa` keys only with SHA-2
 * (ssh2 reports rsa-sha2-256/512 as key `ssh-rsa` with hash sha256/sha512; plain ssh-rsa is SHA-1).
 */
export function acceptedSignature(keyAlgo: string, hashAlgo: string | undefined): boolean {
  if (keyAlgo === 'ssh-rsa') return hashAlgo === 'sha256' || hashAlgo === 'sha512';
  return (SSH_KEY_TYPES as readonly string[]).includes(keyAlgo);
}
