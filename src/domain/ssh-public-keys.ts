// SSH public keys as people paste them (`ssh-ed25519 AAAA... comment`) and as SSH carries them
// (the key blob): which algorithms we accept, and the SHA-256 fingerprint OpenSSH shows.
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

/** Parses one public key line; a reason for people when it is not an accepted public key. */
export async function parseSshPublicKey(text: string): Promise<SshPublicKey | { error: string }> {
  const line = (text ?? '').trim();
  if (!line || line.length > 16_384) return { error: 'A public key line like "ssh-ed25519 AAAA... comment" is required' };
  if (/PRIVATE KEY/.test(line)) return { error: 'This is a private key: send the public key (the .pub file) instead' };
  // loaded here only: processes that never parse a key do not carry ssh2
  const { default: ssh2 } = await import('ssh2');
  const parsed = ssh2.utils.parseKey(line);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) return { error: 'Not a readable SSH public key (OpenSSH format: "<type> <base64> [comment]")' };
  if (key.isPrivateKey()) return { error: 'This is a private key: send the public key (the .pub file) instead' };
  if (!(SSH_KEY_TYPES as readonly string[]).includes(key.type)) return { error: `Key type ${key.type} is not accepted; use ${SSH_KEY_TYPES.join(', ')}` };
  const blob = key.getPublicSSH();
  return { type: key.type, blob, comment: key.comment || line.split(/\s+/).slice(2).join(' '), fingerprint: sshFingerprint(blob) };
}

/**
 * Whether a signature made with this algorithm may log in: `ssh-rsa` keys only with SHA-2
 * (ssh2 reports rsa-sha2-256/512 as key `ssh-rsa` with hash sha256/sha512; plain ssh-rsa is SHA-1).
 */
export function acceptedSignature(keyAlgo: string, hashAlgo: string | undefined): boolean {
  if (keyAlgo === 'ssh-rsa') return hashAlgo === 'sha256' || hashAlgo === 'sha512';
  return (SSH_KEY_TYPES as readonly string[]).includes(keyAlgo);
}
