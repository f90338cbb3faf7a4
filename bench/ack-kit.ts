// The acknowledgements benchmark's pieces (bench/acknowledgements.ts): the real e-invoices it sends,
// its client threads (ack-client-thread.mjs), the feeder's POST and the PDF check threads' nice values.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ROOT } from '../testkit/paths.ts';

// the bench turns certificate checks off for its own calls; the client threads do it per connection, without Node's warning
const clientEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TLS_REJECT_UNAUTHORIZED'));
const CORPORA = path.resolve(ROOT, '../shared/corpora');

export interface CorpusFile {
  name: string;
  bytes: Uint8Array;
}
export function corpus(): CorpusFile[] {
  const from = (dir: string, ext: string) => {
    const full = path.join(CORPORA, dir);
    if (!fs.existsSync(full)) throw new Error(`${full} is missing: the benchmark reads real e-invoices from ../shared/corpora`);
    return fs
      .readdirSync(full)
      .filter((f) => f.endsWith(ext))
      .map((f) => ({ name: f, bytes: new Uint8Array(fs.readFileSync(path.join(full, f))) }));
  };
  // every XML renders (the costliest work a worker does), the hybrid PDFs are parsed and their XML read
  return [...from('pdf-matching/einv', '.pdf'), ...from('einvoice-derived', '.pdf'), ...from('einvoice-xml', '.xml')];
}

type FromClient = { ready: true } | { latencies: number[] } | { error: string };
export function startClient(data: object): { worker: Worker; ready: Promise<void>; result: Promise<number[]> } {
  const worker = new Worker(new URL('./ack-client-thread.mjs', import.meta.url), { workerData: data, env: clientEnv });
  let ready!: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  const result = new Promise<number[]>((resolve, reject) => {
    worker.on('message', (m: FromClient) => {
      if ('ready' in m) ready();
      else if ('latencies' in m) resolve(m.latencies);
      else reject(new Error(m.error));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`client thread exited with ${code}`)));
  });
  result.catch(() => ready()); // a client that fails before it is ready fails the run through result
  return { worker, ready: readyP, result };
}

export function postJson(agent: https.Agent, port: number, key: string, json: string): Promise<void> {
  const body = Buffer.from(json);
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
        res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`feeder: POST /v2/imports ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The nice value of each thread of a process named like piscina's workers, from /proc (field 19 of stat). */
export function threadNices(pid: number): string {
  const seen: Record<string, number[]> = {};
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      (seen[comm] ??= []).push(nice);
    } catch {} // the thread ended
  }
  return (
    Object.entries(seen)
      .filter(([, n]) => n.some((x) => x !== 0))
      .map(([c, n]) => `${c} ${n.join('/')}`)
      .join(', ') || 'every thread 0'
  );
}
