// One client of bench:acknowledgements (acknowledgements.ts): sends real e-invoices one after the
// other until told to stop, over HTTPS (POST /v2/imports, a keep-alive connection of its own) or
// FTPS (one basic-ftp connection), and reports how long each acknowledgement took (the answer, or
// the 226). Plain .mjs: worker threads do not get tsx's loader.
import https from 'node:https';
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from 'basic-ftp';

const { mode, port, key, user, password, files, tag } = workerData;
let stop = false;
parentPort.on('message', (m) => {
  if (m.stop) stop = true;
});
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

function post(body) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v2/imports',
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 201 || res.statusCode === 200 || res.statusCode === 202 ? resolve() : reject(new Error(`POST /v2/imports: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function ftps() {
  const c = new Client(10_000);
  await c.access({ host: '127.0.0.1', port, user, password, secure: true, secureOptions: { rejectUnauthorized: false } });
  return c;
}

const latencies = [];
try {
  const ftp = mode === 'ftps' ? await ftps() : undefined;
  parentPort.postMessage({ ready: true });
  for (let n = 0; !stop; n++) {
    const f = files[n % files.length];
    // distinct bytes per upload, still a PDF (a comment after %%EOF) or XML (a comment after the root)
    const bytes = Buffer.concat([Buffer.from(f.bytes), Buffer.from(f.name.endsWith('.xml') ? `\n<!-- ${tag}-${n} -->\n` : `\n% ${tag}-${n}\n`)]);
    const name = `${tag}-${n}-${f.name}`;
    const body = mode === 'http' ? Buffer.from(JSON.stringify({ Filename: name, Content: bytes.toString('base64') })) : undefined;
    const t0 = performance.now();
    if (ftp) await ftp.uploadFrom(Readable.from([bytes]), name);
    else await post(body);
    latencies.push(performance.now() - t0);
  }
  ftp?.close();
  agent.destroy();
  parentPort.postMessage({ latencies });
} catch (e) {
  parentPort.postMessage({ error: `${mode} client: ${e.message}` });
}
