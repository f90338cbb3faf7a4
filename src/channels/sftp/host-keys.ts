// The SFTP server's host keys: SFTP_HOST_KEY (a private key file, or the PEM itself), or keys
// generated once into DATA_DIR/sftp (Ed25519, plus RSA for old clients) and reused after that.
// Their SHA-256 fingerprints are what users compare with what their client shows.
import fs from 'node:fs';
import path from 'node:path';
import ssh2 from 'ssh2';
import { sshFingerprint } from '../../domain/ssh-public-keys.ts';

export interface HostKeyFingerprint {
  type: string;
  fingerprint: string;
}

export interface HostKeys {
  /** private keys (OpenSSH or PEM text) for ssh2's Server */
  keys: string[];
  fingerprints: HostKeyFingerprint[];
  /** where they came from, for the start-up log */
  source: string;
}

// ssh2 1.17 drops a leading zero byte of about 1 in 170 Ed25519 public keys and then cannot read
// the key it wrote: such a pair is made again
const readable = (pair: { private: string }) => {
  const k = ssh2.utils.parseKey(pair.private);
  return !(k instanceof Error) && !Array.isArray(k) && k.isPrivateKey();
};
const ed25519 = (): { private: string; public: string } => {
  const pair = ssh2.utils.generateKeyPairSync('ed25519');
  return readable(pair) ? pair : ed25519();
};

const GENERATED = [
  { file: 'ssh_host_ed25519_key', make: ed25519 },
  { file: 'ssh_host_rsa_key', make: () => ssh2.utils.generateKeyPairSync('rsa', { bits: 3072 }) },
];

/** Reads (or, without SFTP_HOST_KEY, makes once) the host keys; throws with a readable reason. */
export function loadHostKeys(options: { dataDir: string; hostKey?: string }): HostKeys {
  if (options.hostKey) {
    const text = options.hostKey.includes('PRIVATE KEY') ? options.hostKey : readKeyFile(options.hostKey);
    return { keys: [text], fingerprints: [fingerprintOf(text, 'SFTP_HOST_KEY')], source: options.hostKey.includes('PRIVATE KEY') ? 'SFTP_HOST_KEY' : options.hostKey };
  }
  const dir = path.resolve(options.dataDir, 'sftp');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keys = GENERATED.map((g) => {
    const file = path.join(dir, g.file);
    if (!fs.existsSync(file)) {
      const pair = g.make();
      // written whole under a temporary name, then linked into place: a process starting beside
      // this one on the same DATA_DIR never reads a half-written key, and the first key stays
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, pair.private, { mode: 0o600 });
      try {
        fs.linkSync(tmp, file);
        fs.writeFileSync(`${file}.pub`, `${pair.public}\n`, { mode: 0o644 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    }
    return readKeyFile(file);
  });
  return { keys, fingerprints: keys.map((k, i) => fingerprintOf(k, GENERATED[i].file)), source: dir };
}

function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`SFTP host key ${file} cannot be read: ${(err as Error).message}`);
  }
}

function fingerprintOf(text: string, what: string): HostKeyFingerprint {
  const parsed = ssh2.utils.parseKey(text);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error || !key.isPrivateKey()) throw new Error(`SFTP host key ${what} is not a readable private key (unencrypted OpenSSH or PEM)`);
  return { type: key.type, fingerprint: sshFingerprint(key.getPublicSSH()) };
}
