// One thread of bench:ftp's client (ftp-clients.ts): its share of the FTPS connections
// (basic-ftp), opened at start, then uploads of the files the main thread names, each reported
// when its 226 came. Plain .mjs: worker threads do not get tsx's loader.
import { parentPort, workerData } from 'node:worker_threads';
import { Readable } from 'node:stream';
import { Client } from 'basic-ftp';

const { what, target, connections, contents } = workerData;
const sleep = (n) => new Promise((r) => setTimeout(r, n));

/** Connected before the clock starts (retried: a stock ftp-srv can lose its AUTH TLS race, above all while cold). */
async function connect() {
  for (let attempt = 1; ; attempt++) {
    const c = new Client(5000);
    try {
      await c.access({
        host: '127.0.0.1',
        port: target.port,
        user: target.user,
        password: target.password,
        secure: true,
        secureOptions: { rejectUnauthorized: false },
      });
      if (target.dir) await c.cd(target.dir);
      return c;
    } catch (e) {
      c.close();
      if (attempt >= 20) throw new Error(`${what}: could not connect: ${e.message}`);
      await sleep(100);
    }
  }
}

const clients = await Promise.all(Array.from({ length: connections }, connect));
parentPort.postMessage({ ready: true });
parentPort.on('message', async (m) => {
  if (m.close) {
    for (const c of clients) c.close();
    parentPort.close();
    return;
  }
  let next = 0;
  try {
    await Promise.all(
      clients.map(async (_, k) => {
        while (next < m.upload.length) {
          const { i, name } = m.upload[next++];
          const bytes = contents[i];
          const send = () => clients[k].uploadFrom(Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]), name);
          await send().catch(async (e) => {
            // vsftpd, beside the measured servers, now and then fails a data connection's TLS
            // ("wrong version number"): its connection is opened again and the file sent once more
            if (!target.retryOnce) throw new Error(`${what}: upload of ${name} failed: ${e.message}`);
            parentPort.postMessage({ retried: name, why: e.message });
            clients[k].close();
            clients[k] = await connect();
            await send().catch((e2) => {
              throw new Error(`${what}: upload of ${name} failed twice: ${e2.message}`);
            });
          });
          parentPort.postMessage({ done: i, at: Date.now() });
        }
      }),
    );
    parentPort.postMessage({ finished: true });
  } catch (e) {
    parentPort.postMessage({ error: e.message });
  }
});
