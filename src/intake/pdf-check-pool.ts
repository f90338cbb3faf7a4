// A small pool of worker threads that run the PDF check (pdf-lib parsing is synchronous CPU work:
// a 5 MB file on the main thread would stall HTTP, FTP and BullMQ lock renewals). The API's
// POST /v2/documents and the intake workers share it through the container.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sniffPdf, type PdfChecker, type PdfVerdict } from '../domain/pdf.ts';

export interface PdfCheckPool {
  check: PdfChecker;
  /** how many checks ran in threads, for tests and metrics */
  stats(): { threads: number; checked: number; queued: number };
  /** starts every thread now (threads start lazily; a worker process wants them before its first file) */
  warm(): void;
  close(): Promise<void>;
}

interface Task {
  id: number;
  bytes: Uint8Array;
  resolve: (v: PdfVerdict) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  task?: Task;
  /** the thread loaded its code; a death after that is the file's doing */
  ready?: boolean;
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

export function createPdfCheckPool(size: number, opts: PdfCheckPoolOptions = {}): PdfCheckPool {
  const { timeoutMs = 30_000, maxHeapMb = 512, threadUrl = THREAD_URL } = opts;
  const slots: Slot[] = [];
  const queue: Task[] = [];
  let nextId = 1;
  let checked = 0;
  let closed = false;

  const spawn = (): Slot => {
    // execArgv [] : the thread registers tsx itself if it needs it, and must not inherit vitest's or the CLI's flags
    const slot: Slot = { worker: new Worker(threadUrl, { execArgv: [], workerData: { checkerUrl: CHECKER_URL }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } }) };
    slot.worker.unref();
    slot.worker.on('message', (m: { id?: number; verdict?: PdfVerdict; ready?: boolean }) => {
      if (m.ready) slot.ready = true;
      const task = slot.task;
      if (!task || m.id !== task.id) return;
      clearTimeout(task.timer);
      slot.task = undefined;
      checked++;
      task.resolve(m.verdict!);
      dispatch();
    });
    const lost = (err: Error) => {
      const i = slots.indexOf(slot);
      if (i >= 0) slots.splice(i, 1);
      const task = slot.task;
      slot.task = undefined;
      if (task) {
        clearTimeout(task.timer);
        // A thread that was up and died on this file (out of memory, say) would die on it again:
        // a permanent verdict. One that never came up is our problem: transient.
        if (slot.ready && !closed) task.resolve({ ok: false, reason: `The PDF could not be checked: ${err.message.split('\n')[0].slice(0, 200)}` });
        else task.reject(err);
      }
      dispatch();
    };
    slot.worker.on('error', lost);
    slot.worker.on('exit', (code) => lost(new Error(`PDF check thread exited with code ${code}`)));
    slots.push(slot);
    return slot;
  };

  const dispatch = () => {
    while (!closed && queue.length) {
      let slot = slots.find((s) => !s.task);
      if (!slot && slots.length < size) slot = spawn();
      if (!slot) return;
      const task = queue.shift()!;
      slot.task = task;
      const s = slot;
      task.timer = setTimeout(() => {
        // a pathological file: give up on it permanently and replace the thread
        s.task = undefined;
        void s.worker.terminate();
        task.resolve({ ok: false, reason: `The PDF could not be checked within ${Math.round(timeoutMs / 1000)} s` });
      }, timeoutMs);
      // a private copy, transferred: the caller keeps its buffer for storing
      const copy = new Uint8Array(task.bytes);
      s.worker.postMessage({ id: task.id, bytes: copy }, [copy.buffer]);
    }
  };

  return {
    async check(bytes) {
      const sniffed = sniffPdf(bytes);
      if (sniffed) return sniffed;
      if (closed) throw new Error('The PDF check pool is closed');
      return new Promise<PdfVerdict>((resolve, reject) => {
        queue.push({ id: nextId++, bytes, resolve, reject });
        dispatch();
      });
    },
    stats: () => ({ threads: slots.length, checked, queued: queue.length }),
    warm() {
      while (!closed && slots.length < size) spawn();
    },
    async close() {
      closed = true;
      for (const t of queue.splice(0)) t.reject(new Error('The PDF check pool is closed'));
      await Promise.all(slots.splice(0).map((s) => s.worker.terminate()));
    },
  };
}
