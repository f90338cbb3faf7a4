// Every reach into ssh2's private state, in one file, pinned to ssh2 1.17.0
// (test/sftp/ssh2-adapter.test.ts checks the installed version and each behaviour below with real
// clients). ssh2 1.17.0's server gets three things wrong that strict clients notice:
//
// - PK_OK (RFC 4252 section 7) must name the algorithm the client asked about. ssh2 maps
//   rsa-sha2-256/512 to the key type `ssh-rsa` and answers with that: Go's x/crypto (rclone) and
//   asyncssh then give the key up ("Key mismatch"). acceptKeyQuery() answers with the client's name.
// - Its EXT_INFO `server-sig-algs` lacks a comma (`...nistp521rsa-sha2-512`) and lists ssh-rsa
//   (SHA-1) and ssh-dss, which this server refuses. fixServerSigAlgs() sends the list of what
//   acceptedSignature() takes, in its place.
// - Its SFTP VERSION reply names no extensions, though it serves posix-rename@openssh.com.
//   advertiseSftpExtensions() adds it.
// The upstream fix for the first two is in docs/upstream/ssh2-pk-ok-and-server-sig-algs.md.
// It also has no call for an exit status on an sftp channel (scp checks it): sendExitStatus(),
// nor a stderr for one: sendStderr().
import { createRequire } from 'node:module';
import type { AuthContext, Connection, SFTPWrapper } from 'ssh2';

const require = createRequire(import.meta.url);

export const SSH2_VERSION = '1.17.0';

/** The signature algorithms the server accepts for user keys (see ssh-public-keys.ts' acceptedSignature). */
export const SERVER_SIG_ALGS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'];

/** The SFTP extensions this server serves (sftp-requests.ts) and advertises in VERSION. */
const SFTP_EXTENSIONS: [name: string, data: string][] = [['posix-rename@openssh.com', '1']];

const MESSAGE_EXT_INFO = 7;
const SFTP_VERSION = 2;

interface PacketWriter {
  allocStart: number;
  alloc(size: number): Buffer;
  finalize(packet: Buffer): Buffer;
}
interface Protocol {
  _server: boolean;
  _kex?: { remoteExtInfoEnabled?: boolean };
  _packetRW: { write: PacketWriter };
  _onHandshakeComplete: (...args: unknown[]) => void;
  authPKOK(keyAlgo: string, key: Buffer): void;
  exitStatus(channel: number, status: number): void;
  channelData(channel: number, data: Buffer): void;
}
const { sendPacket } = require('ssh2/lib/protocol/utils.js') as { sendPacket(proto: Protocol, packet: Buffer): boolean };

const protocolOf = (o: unknown): Protocol => (o as { _protocol: Protocol })._protocol;

/** The installed ssh2's version (the adapter is written for SSH2_VERSION). */
export function installedSsh2Version(): string {
  return (require('ssh2/package.json') as { version: string }).version;
}

/** The algorithm name the client used in its publickey request (ssh2 reports rsa-sha2-* as ssh-rsa + hash). */
export function clientKeyAlgorithm(keyAlgo: string, hashAlgo: string | undefined): string {
  if (keyAlgo === 'ssh-rsa' && hashAlgo === 'sha256') return 'rsa-sha2-256';
  if (keyAlgo === 'ssh-rsa' && hashAlgo === 'sha512') return 'rsa-sha2-512';
  return keyAlgo;
}

/** Answers a publickey query (no signature yet) with PK_OK naming the client's own algorithm. */
export function acceptKeyQuery(ctx: Extract<AuthContext, { method: 'publickey' }>): void {
  if (ctx.signature) {
    ctx.accept();
    return;
  }
  // what ssh2's PKAuthContext.accept() does, with the algorithm the client named
  (ctx as unknown as { _initialResponse: boolean })._initialResponse = true;
  protocolOf(ctx).authPKOK(clientKeyAlgorithm(ctx.key.algo, ctx.hashAlgo), ctx.key.data);
}

/**
 * Call in the server's `connection` listener (before the key exchange ends): the first handshake
 * sends this server's `server-sig-algs` instead of ssh2's, at the same point (RFC 8308: right
 * after the server's first NEWKEYS).
 */
export function fixServerSigAlgs(client: Connection): void {
  const proto = protocolOf(client);
  const original = proto._onHandshakeComplete;
  let first = true;
  proto._onHandshakeComplete = (...args: unknown[]) => {
    const send = first && proto._server && proto._kex?.remoteExtInfoEnabled === true;
    first = false;
    if (send) proto._kex!.remoteExtInfoEnabled = false;
    original(...args);
    if (send) sendExtInfo(proto, SERVER_SIG_ALGS.join(','));
  };
}

function sendExtInfo(proto: Protocol, algs: string): void {
  const name = 'server-sig-algs';
  const algsLen = Buffer.byteLength(algs);
  const w = proto._packetRW.write;
  let p = w.allocStart;
  const packet = w.alloc(1 + 4 + 4 + name.length + 4 + algsLen);
  packet[p++] = MESSAGE_EXT_INFO;
  p = packet.writeUInt32BE(1, p);
  p = packet.writeUInt32BE(name.length, p);
  p += packet.write(name, p, 'latin1');
  p = packet.writeUInt32BE(algsLen, p);
  packet.write(algs, p, 'utf8');
  sendPacket(proto, w.finalize(packet));
}

/** The SFTP VERSION packet (version 3) with the extensions this server serves. */
export function sftpVersionPacket(extensions = SFTP_EXTENSIONS): Buffer {
  const parts = [Buffer.from([SFTP_VERSION, 0, 0, 0, 3])];
  for (const [name, data] of extensions) {
    for (const s of [name, data]) {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(Buffer.byteLength(s));
      parts.push(len, Buffer.from(s, 'utf8'));
    }
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/**
 * Call on the sftp stream as soon as it is accepted (before the client's INIT is read): ssh2's
 * fixed VERSION reply (no extensions) goes out as sftpVersionPacket() instead.
 */
export function advertiseSftpExtensions(sftp: SFTPWrapper): void {
  const raw = sftp as unknown as { _protocol: Protocol; outgoing: { window: number } };
  const proto = raw._protocol;
  const bare = sftpVersionPacket([]);
  const ours = sftpVersionPacket();
  let pending = true;
  raw._protocol = new Proxy(proto, {
    get(target, prop) {
      if (prop === 'channelData' && pending) {
        return (channel: number, data: Buffer) => {
          if (pending && data.equals(bare)) {
            pending = false;
            // ssh2 counted the bare packet against the client's window: count the difference too
            raw.outgoing.window -= ours.length - bare.length;
            return target.channelData(channel, ours);
          }
          return target.channelData(channel, data);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value, target);
    },
  });
}

/**
 * A line on the sftp channel's stderr (SSH extended data). OpenSSH's sftp shows a STATUS only as
 * "Failure", never its message, but its ssh prints the channel's stderr to the terminal: the
 * words reach the person that way. ssh2 gives an sftp stream no stderr of its own.
 */
export function sendStderr(sftp: SFTPWrapper, text: string): void {
  const raw = sftp as unknown as {
    _protocol?: Protocol & { channelExtData(id: number, data: Buffer, type: number): void };
    outgoing?: { id: number; state: string; window: number };
  };
  const data = Buffer.from(text.endsWith('\n') ? text : `${text}\n`, 'utf8');
  if (raw.outgoing?.state !== 'open' || raw.outgoing.window < data.length) return;
  raw.outgoing.window -= data.length;
  raw._protocol?.channelExtData(raw.outgoing.id, data, 1 /* SSH_EXTENDED_DATA_STDERR */);
}

/** Exit status 0 on an open sftp channel (sshd sends it when its sftp-server exits; scp checks it). */
export function sendExitStatus(sftp: SFTPWrapper, status = 0): void {
  const raw = sftp as unknown as { _protocol?: Protocol; outgoing?: { id: number; state: string } };
  if (raw.outgoing?.state === 'open') raw._protocol?.exitStatus(raw.outgoing.id, status);
}
