// Reading a public key line people paste, with ssh2's key parser: the one place outside the SFTP
// channel that loads ssh2 (an I/O library the domain does not import). The rules it applies
// (accepted types, the fingerprint) are the domain's (domain/ssh-public-keys.ts).
import { SSH_KEY_TYPES, sshFingerprint, type SshPublicKey } from '../domain/ssh-public-keys.ts';

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
