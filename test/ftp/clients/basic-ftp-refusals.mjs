// basic-ftp (explicit FTPS) sending uploads the server refuses after PASV/EPSV (a name with a path
// part): basic-ftp connects its data connection and starts its TLS handshake at once, so a server
// that closes that connection early makes it report the broken socket instead of the 553 and
// close the session. Run by test/ftp/ftp-refusals-under-load.test.ts.
// usage: node basic-ftp-refusals.mjs PORT USER PASSWORD LOCAL COUNT
// prints one line per upload: "<code> <message>" of the FTP error, or "ERROR <message>" otherwise
import { Client, FTPError } from 'basic-ftp';

const [port, user, password, local, count] = process.argv.slice(2);
const ftp = new Client(20_000);
try {
  await ftp.access({ host: '127.0.0.1', port: Number(port), user, password, secure: true, secureOptions: { rejectUnauthorized: false } });
  for (let i = 0; i < Number(count); i++) {
    try {
      await ftp.uploadFrom(local, `./../refused-${i}.pdf`);
      console.log('STORED');
    } catch (err) {
      console.log(err instanceof FTPError ? `${err.code} ${err.message}` : `ERROR ${err.message}`);
      if (ftp.closed) break;
    }
  }
  console.log(`== NOOP ${(await ftp.send('NOOP')).code}`);
} finally {
  ftp.close();
}
