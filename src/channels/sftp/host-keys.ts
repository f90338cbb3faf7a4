// The SFTP server's host keys: SFTP_HOST_KEY (a private key file, or the PEM itself), or keys
// generated once into DATA_DIR/sftp (Ed25519, plus RSA for old clients) and reused after that.
// Their SHA-256 fingerprints are what users compare with what their client shows.
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ssh2 from 'ssh2';
import { sshFingerprint } from '../../domain/ssh-public-keys.ts';

interface HostKeyFingerprint {
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
type Pair = { private: string; public: string };
type KeyType = 'ed25519' | 'rsa';
const OPTIONS = { ed25519: {}, rsa: { bits: 3072 } };
// in libuv's thread pool: RSA 3072 takes a second or more of CPU, which on the main thread held up
// a first start (and everything else the process does) that long
const generate = promisify(ssh2.utils.generateKeyPair) as (type: KeyType, opts: object) => Promise<Pair>;
async function make(type: KeyType): Promise<Pair> {
  const pair = await generate(type, OPTIONS[type]);
  return readable(pair) ? pair : make(type);
}
function makeSync(type: KeyType): Pair {
  const pair = ssh2.utils.generateKeyPairSync(type, OPTIONS[type]);
  return readable(pair) ? pair : makeSync(type);
}

const GENERATED: { file: string; type: KeyType }[] = [
  { file: 'ssh_host_ed25519_key', type: 'ed25519' },
  { file: 'ssh_host_rsa_key', type: 'rsa' },
];

/**
 * Makes the missing host keys (without SFTP_HOST_KEY), all at once off the main thread, then reads
 * them as loadHostKeys does. What a start awaits; a process beside it on the same DATA_DIR keeps
 * whichever key was written first.
 */
export async function ensureHostKeys(options: { dataDir: string; hostKey?: string }): Promise<HostKeys> {
  if (!options.hostKey) {
    const dir = hostKeyDir(options.dataDir);
    await Promise.all(
      GENERATED.map(async (g) => {
        const file = path.join(dir, g.file);
        if (!fs.existsSync(file)) writeOnce(file, await make(g.type));
      }),
    );
  }
  return loadHostKeys(options);
}

/**
 * Reads the host keys; throws with a readable reason. Without SFTP_HOST_KEY they are made first if
 * missing, synchronously (the dashboard's connection details, tests); a start makes them with
 * ensureHostKeys.
 */
export function loadHostKeys(options: { dataDir: string; hostKey?: string }): HostKeys {
  if (options.hostKey) {
    const text = options.hostKey.includes('PRIVATE KEY') ? options.hostKey : readKeyFile(options.hostKey);
    return {
      keys: [text],
      fingerprints: [fingerprintOf(text, 'SFTP_HOST_KEY')],
      source: options.hostKey.includes('PRIVATE KEY') ? 'SFTP_HOST_KEY' : options.hostKey,
    };
  }
  const dir = hostKeyDir(options.dataDir);
  const keys = GENERATED.map((g) => {
    const file = path.join(dir, g.file);
    if (!fs.existsSync(file)) writeOnce(file, makeSync(g.type));
    return readKeyFile(file);
  });
  return { keys, fingerprints: keys.map((k, i) => fingerprintOf(k, GENERATED[i].file)), source: dir };
}

function hostKeyDir(dataDir: string): string {
  const dir = path.resolve(dataDir, 'sftp');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * Written whole under a temporary name, then linked into place: a process starting beside this one
 * on the same DATA_DIR never reads a half-written key, and the first key stays.
 */
function writeOnce(file: string, pair: Pair): void {
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
