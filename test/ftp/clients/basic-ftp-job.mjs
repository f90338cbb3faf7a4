// basic-ftp (explicit or implicit FTPS): the recipe of docs/ftp.md, run by test/ftp/ftps-interop.test.ts.
// usage: node basic-ftp-job.mjs explicit|implicit PORT USER PASSWORD GOOD_LOCAL GOOD_REMOTE TEMP_LOCAL TEMP_REMOTE FINAL_REMOTE JUNK_LOCAL JUNK_REMOTE
import { Writable } from 'node:stream';
import { Client } from 'basic-ftp';

const [mode, port, user, password, goodLocal, goodRemote, tempLocal, tempRemote, finalRemote, junkLocal, junkRemote] = process.argv.slice(2);
const ftp = new Client(20_000);
try {
  await ftp.access({
    host: '127.0.0.1',
    port: Number(port),
    user,
    password,
    secure: mode === 'implicit' ? 'implicit' : true,
    secureOptions: { rejectUnauthorized: false }, // self-signed test certificate
  });
  for (const [local, remote] of [
    [goodLocal, goodRemote],
    [tempLocal, tempRemote],
    [junkLocal, junkRemote],
  ]) {
    console.log((await ftp.uploadFrom(local, remote)).message);
  }
  await ftp.rename(tempRemote, finalRemote);
  console.log('== LIST');
  for (const f of await ftp.list()) console.log(`${f.user} ${f.group} ${f.size} ${f.name}`); // owner: the status
  // basic-ftp has no call that sends NLST
  console.log('== ERROR');
  const error = [];
  await ftp.downloadTo(
    new Writable({
      write(c, _e, cb) {
        error.push(c);
        cb();
      },
    }),
    `${junkRemote}.error.txt`,
  );
  console.log(Buffer.concat(error).toString());
} finally {
  ftp.close();
}
