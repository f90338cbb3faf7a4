// The baseline of bench/ftp.ts: a stock ftp-srv (FTPS, same TLS settings) that writes uploads to
// a directory and nothing else. Prints its port on stdout once listening.
//
//   node --import tsx bench/ftp-bare-server.ts <dir> <cert> <key> <pasvMin> <pasvMax>
import fs from 'node:fs';
import { FtpSrv } from 'ftp-srv';
import { pino } from 'pino';

const [dir, cert, key, pasvMin, pasvMax] = process.argv.slice(2);
const server = new FtpSrv({
  url: 'ftp://127.0.0.1:0',
  pasv_url: '127.0.0.1',
  pasv_min: Number(pasvMin),
  pasv_max: Number(pasvMax),
  tls: { cert: fs.readFileSync(cert), key: fs.readFileSync(key), minVersion: 'TLSv1.2' } as never,
  log: pino({ level: 'silent' }) as never,
});
server.on('login', (_data, resolve) => resolve({ root: dir }));
await server.listen();
const address = (server as unknown as { server: import('node:net').Server }).server.address();
console.log(typeof address === 'object' && address ? address.port : 0);
