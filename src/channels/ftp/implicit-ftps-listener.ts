// Implicit FTPS: a port where TLS starts with the first byte (some accounting packages speak only
// that). Each connection is wrapped with the server's one TLS context (not a tls.Server's own), so
// that its data connections can resume the control connection's TLS session; once the handshake
// is done the socket goes on to the FTP server as if it had come to the control port.
import { createServer, type Server } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Logger } from '../../platform/logger.ts';

// a client that connects must finish its handshake within this time
const HANDSHAKE_MS = 30_000;

export async function listenImplicitFtps(
  options: { host: string; port: number; secureContext: SecureContext; log: Logger },
  onSecure: (socket: TLSSocket) => void,
): Promise<Server> {
  const server = createServer((raw) => {
    raw.on('error', () => {});
    const socket = new TLSSocket(raw, { isServer: true, secureContext: options.secureContext });
    const handshake = setTimeout(() => socket.destroy(), HANDSHAKE_MS);
    socket.once('error', (err) => {
      clearTimeout(handshake);
      options.log.debug({ err: err.message, address: raw.remoteAddress }, 'ftps implicit: TLS handshake failed');
      socket.destroy();
    });
    socket.once('secure', () => {
      clearTimeout(handshake);
      onSecure(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (err) => options.log.error({ err }, 'ftps implicit server error'));
  return server;
}
