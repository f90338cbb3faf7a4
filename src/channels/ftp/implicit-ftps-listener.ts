// Implicit FTPS: a port where TLS starts with the first byte (some accounting packages speak only
// that). Each connection is wrapped with the server's one TLS context (not a tls.Server's own), so
// that its data connections can resume the control connection's TLS session; once the handshake
// is done the socket goes on to the FTP server as if it had come to the control port.
import { createServer, type Server, type Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Logger } from '../../platform/logger.ts';

export async function listenImplicitFtps(
  options: {
    host: string;
    port: number;
    secureContext: SecureContext;
    log: Logger;
    /** Whether to serve this TCP connection, asked before any TLS work (the limits before login,
     * whose deadline also bounds the handshake); refused ones are closed. */
    admit: (raw: Socket) => boolean;
  },
  onSecure: (socket: TLSSocket, raw: Socket) => void,
): Promise<Server> {
  const server = createServer((raw) => {
    raw.on('error', () => {});
    if (!options.admit(raw)) {
      raw.destroy();
      return;
    }
    const socket = new TLSSocket(raw, { isServer: true, secureContext: options.secureContext });
    socket.once('error', (err) => {
      options.log.debug({ err: err.message, address: raw.remoteAddress }, 'ftps implicit: TLS handshake failed');
      socket.destroy();
    });
    socket.once('secure', () => onSecure(socket, raw));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (err) => options.log.error({ err }, 'ftps implicit server error'));
  return server;
}
