// bench:ftp's client: FTPS connections (basic-ftp) spread over client threads, so that the
// client has the cores a server would leave it (one Node event loop spends about 4.5 ms of CPU
// per upload and would cap a fast server near 220 uploads/s). See ftp-client-thread.mjs.
import { Worker } from 'node:worker_threads';

interface ClientThreadData {
  what: string;
  /** retryOnce: a failed upload is sent again once on a new connection (said on stderr); only for vsftpd, beside the measured servers */
  target: { port: number; user: string; password: string; dir?: string; retryOnce?: boolean };
  connections: number;
  contents: Uint8Array[];
}
type ToThread = { upload: { i: number; name: string }[] } | { close: true };
type FromThread = { ready: true } | { done: number; at: number } | { retried: string; why: string } | { finished: true } | { error: string };

export interface UploadRun {
  /** when each file's 226 came (ms since epoch), by index */
  doneAt: number[];
  seconds: number;
  /** CPU of this whole process while the uploads ran (the client: its threads do the work), ms */
  clientCpuMs: number;
}

// the bench turns certificate checks off for its HTTPS calls; basic-ftp's own option does it here,
// without Node's warning from every thread
const clientEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TLS_REJECT_UNAUTHORIZED'));

export class FtpClients {
  private constructor(private readonly threads: Worker[]) {}

  static async open(what: string, target: ClientThreadData['target'], connections: number, threadCount: number, contents: Buffer[]): Promise<FtpClients> {
    const count = Math.min(threadCount, connections);
    const threads = Array.from({ length: count }, (_, t) => {
      // connections shared out as evenly as they go
      const mine = Math.floor(connections / count) + (t < connections % count ? 1 : 0);
      const data: ClientThreadData = { what, target, connections: mine, contents };
      return new Worker(new URL('./ftp-client-thread.mjs', import.meta.url), { workerData: data, env: clientEnv });
    });
    await Promise.all(threads.map((w) => next(w, (m) => 'ready' in m)));
    return new FtpClients(threads);
  }

  /** Uploads file `indexes[k]` of the contents as `names[k]`, shared out over the threads. */
  async upload(indexes: number[], names: string[]): Promise<UploadRun> {
    const doneAt: number[] = [];
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    await Promise.all(
      this.threads.map((w, t) => {
        const upload = indexes.map((i, k) => ({ i, name: names[k] })).filter((_, k) => k % this.threads.length === t);
        const finished = next(w, (m) => {
          if ('done' in m) doneAt[m.done] = m.at;
          if ('retried' in m) console.error(`upload of ${m.retried} sent again on a new connection after: ${m.why}`);
          return 'finished' in m;
        });
        w.postMessage({ upload } satisfies ToThread);
        return finished;
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    return { doneAt, seconds: (Date.now() - t0) / 1000, clientCpuMs: (cpu.user + cpu.system) / 1000 };
  }

  async close(): Promise<void> {
    await Promise.all(
      this.threads.map((w) => {
        const exited = new Promise((r) => w.once('exit', r));
        w.postMessage({ close: true } satisfies ToThread);
        return exited;
      }),
    );
  }
}

/** Resolves when `until` says so of a message of the thread; rejects on its error or exit. */
function next(w: Worker, until: (m: FromThread) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: FromThread) => {
      if ('error' in m) return done(new Error(m.error));
      if (until(m)) done();
    };
    const onError = (e: Error) => done(e);
    const onExit = (code: number) => done(new Error(`client thread exited with ${code}`));
    const done = (e?: Error) => {
      w.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (e) reject(e);
      else resolve();
    };
    w.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}
