// The PDF check in worker threads (pdf-lib parsing is synchronous CPU work: a 5 MB file on the
// main thread would stall HTTP, FTP and BullMQ lock renewals), on piscina: it queues, replaces a
// thread that dies, limits each thread's heap and terminates a thread whose task is aborted.
import path from 'node:path';
import { Piscina } from 'piscina';
import { headerVerdict, type PdfChecker, type PdfVerdict } from '../domain/pdf.ts';

export interface PdfCheckPool {
  check: PdfChecker;
  /** how many checks ran in threads, for tests and metrics */
  stats(): { threads: number; checked: number; queued: number };
  /** starts every thread now (threads start on the first check otherwise; a worker process wants them before its first file) */
  warm(): void;
  close(): Promise<void>;
}

export interface PdfCheckPoolOptions {
  /** a file that takes longer fails permanently */
  timeoutMs?: number;
  /** heap of each thread: a file that needs more kills only its thread, and fails */
  maxHeapMb?: number;
  /** the thread's code (tests) */
  threadUrl?: URL;
}

const THREAD_URL = new URL('./pdf-check-thread.mjs', import.meta.url);
// the check the thread runs: pdf.ts from the sources (tests, tsx), pdf.js from the build (npm start)
const CHECKER_URL = new URL(`../domain/pdf${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url).href;

/** A thread that was up and died on a file (out of memory, say) would die on it again: permanent. */
const DIED_ON_FILE = /^worker exited with code|ERR_WORKER_OUT_OF_MEMORY|reaching memory limit/;

export function createPdfCheckPool(size: number, opts: PdfCheckPoolOptions = {}): PdfCheckPool {
  const { timeoutMs = 30_000, maxHeapMb = 512, threadUrl = THREAD_URL } = opts;
  let pool: Piscina | undefined;
  let closed = false;
  const threads = () =>
    (pool ??= new Piscina({
      filename: threadUrl.href,
      minThreads: size,
      maxThreads: size,
      // the thread registers tsx itself if it needs it, and must not inherit vitest's or the CLI's flags
      execArgv: [],
      workerData: { checkerUrl: CHECKER_URL },
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    }));

  return {
    async check(bytes) {
      const refused = headerVerdict(bytes);
      if (refused) return refused;
      if (closed) throw new Error('The PDF check pool is closed');
      // a private copy, transferred: the caller keeps its buffer for storing
      const copy = new Uint8Array(bytes);
      try {
        return (await threads().run({ bytes: copy }, { transferList: [copy.buffer], signal: AbortSignal.timeout(timeoutMs) })) as PdfVerdict;
      } catch (e) {
        const err = e as Error & { code?: string };
        if (err.name === 'AbortError') return { ok: false, reason: `The PDF could not be checked within ${Math.round(timeoutMs / 1000)} s` };
        if (!closed && DIED_ON_FILE.test(`${err.code ?? ''} ${err.message}`.trim())) {
          const why = err.message.replace(/^worker exited with code: (\d+)/, 'PDF check thread exited with code $1').split('\n')[0].slice(0, 200);
          return { ok: false, reason: `The PDF could not be checked: ${why}` };
        }
        throw err; // the thread never came up, or the pool closed: ours, transient
      }
    },
    stats: () => ({ threads: pool?.threads.length ?? 0, checked: pool?.completed ?? 0, queued: pool?.queueSize ?? 0 }),
    warm() {
      if (!closed) threads();
    },
    async close() {
      closed = true;
      await pool?.destroy();
    },
  };
}
