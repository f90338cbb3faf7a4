// The parts of ftp-srv 4.6.3's connection that its type declarations leave out and this channel
// uses: the command dispatcher (to refuse or take over commands), the control socket, the data
// connector and the login state. Checked against node_modules/ftp-srv/src/connection.js.
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { FtpConnection } from 'ftp-srv';

export interface ParsedCommand {
  directive: string;
  arg: string | null;
  flags: string[];
  raw: string;
}

export interface DataConnector {
  /** resolves with the data socket once the client has connected (bluebird, 5 s timeout) */
  waitForConnection(): PromiseLike<Duplex>;
  socket: Duplex | null;
  end(): void;
}

export interface FtpSrvConnection extends FtpConnection {
  commandSocket: Socket;
  connector: DataConnector;
  commands: {
    handle(message: string | ParsedCommand): unknown;
    parse(message: string): ParsedCommand;
  };
  authenticated?: boolean;
  username?: string;
}

export interface FtpSrvServer {
  /** the listening net.Server */
  server: import('node:net').Server;
  connections: Record<string, FtpSrvConnection>;
}
