// The PDF check in worker threads (pdf-lib parsing is synchronous CPU work: a 5 MB file on the
// main thread would stall HTTP, FTP and BullMQ lock renewals), on piscina: it queues, replaces a
// thread that dies, limits each thread's heap and terminates a thread whose task is aborted.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Piscina } from 'piscina';
import fs from 'node:fs';
import type { RenderedXmlInvoice } from '../formats/einvoice-document.ts';
import { intakeReason } from '../domain/intake-reasons.ts';
import type { PdfChecker, PdfVerdict } from '../domain/document-facts.ts';
import { headerVerdict } from '../formats/pdf.ts';
import { ThreadCpuBudget } from './thread-cpu-budget.ts';
import { ThreadHeaps, type ThreadHeapTotals } from './thread-heaps.ts';

export type XmlRenderer = (xml: Uint8Array) => Promise<RenderedXmlInvoice>;
export type PdfTextReader = (pdf: Uint8Array) => Promise<string>;
/** an invoice's number and total are on its first pages */
const TEXT_PAGES = 3;

export interface PdfCheckPool {
  check: PdfChecker;
  /** an XML e-invoice as a PDF that embeds it (formats/einvoice-document.ts), in a thread */
  render: XmlRenderer;
  /** the text of a PDF's first pages (pdfjs-dist), in a thread; '' when it has none */
  text: PdfTextReader;
  /** how many checks ran in threads, for tests and metrics */
  stats(): { threads: number; checked: number; queued: number };
  /** the threads' own V8 heaps (not in the process's heap figures) */
  heaps(): ThreadHeapTotals;
  /** starts every thread now (threads start on the first check otherwise; a worker process wants them before its first file) */
  warm(): void;
  close(): Promise<void>;
}

export interface PdfCheckPoolOptions {
  /** a file that takes longer of its thread's CPU (Linux; elsewhere of the clock) fails permanently */
  timeoutMs?: number;
  /** heap of each thread: a file that needs more kills only its thread, and fails */
  maxHeapMb?: number;
  /** the thread's code (tests) */
  threadUrl?: URL;
  /** a thread that has had no task this long ends (a new one starts with the next file) */
  idleMs?: number;
  /** a check that has not had timeoutMs of CPU after this long on the clock (its thread starved) ends as a transient error (default 20 x timeoutMs) */
  waitLimitMs?: number;
  /** each thread's nice value (0 keeps the process's): higher yields the cores to the event loop and PostgreSQL */
  priority?: number;
}

const THREAD_URL = new URL('./pdf-check-thread.mjs', import.meta.url);
// the check the thread runs: pdf.ts from the sources (tests, tsx), pdf.js from the build (npm start)
const EXT = path.extname(new URL(import.meta.url).pathname);
const CHECKER_URL = new URL(`../formats/pdf${EXT}`, import.meta.url).href;
const RENDERER_URL = new URL(`../formats/einvoice-document${EXT}`, import.meta.url).href;
const TEXT_URL = new URL(`../formats/pdf-text${EXT}`, import.meta.url).href;
/** DejaVu Sans (dejavu-fonts-ttf): a Unicode font for rendered e-invoices */
const fontFile = (name: string) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}`);
const RENDER_FONTS = { regular: fontFile('DejaVuSans.ttf'), bold: fontFile('DejaVuSans-Bold.ttf') };

/** For a process that runs no pool: the same text reading, on its own thread. */
export const readTextInProcess: PdfTextReader = async (pdf) => (await import('../formats/pdf-text.ts')).readPdfText(pdf, TEXT_PAGES).catch(() => '');

let fonts: { regular: Buffer; bold: Buffer } | undefined;
/** For a process that runs no pool (a container given its own PDF checker): the same rendering, on its own thread. */
export const renderInProcess: XmlRenderer = async (xml) =>
  // loaded on first use, as the PDF reader is: pdf-lib stays out of processes that never render
  (await import('../formats/einvoice-document.ts')).renderXmlInvoice(
    xml,
    (fonts ??= { regular: fs.readFileSync(RENDER_FONTS.regular), bold: fs.readFileSync(RENDER_FONTS.bold) }),
  );

/** A thread that was up and died on a file (out of memory, say) would die on it again: permanent. */
const DIED_ON_FILE = /^worker exited with code|ERR_WORKER_OUT_OF_MEMORY|reaching memory limit/;

export function createPdfCheckPool(size: number, opts: PdfCheckPoolOptions = {}): PdfCheckPool {
  const { timeoutMs = 30_000, maxHeapMb = 512, threadUrl = THREAD_URL, idleMs = 30_000, priority = 0, waitLimitMs } = opts;
  let pool: Piscina | undefined;
  let closed = false;
  let warmed = 0; // warm() tasks done, not counted as checks
  const budget = new ThreadCpuBudget(timeoutMs, waitLimitMs);
  const heaps = new ThreadHeaps(size);
  const threads = () => {
    if (pool) return pool;
    const p = new Piscina({
      filename: threadUrl.href,
      // none kept while idle: each thread holds its own heap and the check's libraries (pkijs,
      // fast-xml-parser; pdf-lib once it has checked a file), 20-40 MB, for files that may not come
      minThreads: 0,
      maxThreads: size,
      idleTimeout: idleMs,
      // the thread registers tsx itself if it needs it, and must not inherit vitest's or the CLI's flags
      execArgv: [],
      workerData: {
        checkerUrl: CHECKER_URL,
        rendererUrl: RENDERER_URL,
        textUrl: TEXT_URL,
        fonts: RENDER_FONTS,
        priority,
        slots: budget.shared,
        heaps: heaps.shared,
      },
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    });
    p.on('workerDestroy', (w: { id: number }) => heaps.release(w.id));
    // a thread that cannot even start leaves the tasks waiting for it queued: they fail now
    // (transient, the job runs again) and the next task tries a new pool
    p.on('error', () => {
      if (pool === p) pool = undefined;
      void p.destroy();
    });
    return (pool = p);
  };
  /** One task in a thread on a private copy of the bytes, transferred (the caller keeps its buffer for storing). */
  const run = async <T>(bytes: Uint8Array, name?: string, extra: object = {}): Promise<T> => {
    if (closed) throw new Error('The PDF check pool is closed');
    const copy = new Uint8Array(bytes);
    // watched until the task ends: AbortSignal.timeout's timer would fire (and abort a finished
    // task's signal) for every file timeoutMs later, work that a busy intake does per file
    const abort = new AbortController();
    // spent on the file: piscina's AbortError (the file's); only waited, the threads starved by
    // load: a TimeoutError (ours, transient)
    let waited = false;
    const watch = budget.watch((why) => {
      waited = why === 'wait';
      abort.abort(new DOMException('The PDF check timed out', 'AbortError'));
    });
    try {
      return await threads().run({ bytes: copy, slot: watch.slot, ...extra }, { ...(name ? { name } : {}), transferList: [copy.buffer], signal: abort.signal });
    } catch (e) {
      if (waited) throw Object.assign(new Error('The PDF check threads had no CPU for the file'), { name: 'TimeoutError' });
      throw e;
    } finally {
      watch.end();
    }
  };

  return {
    async check(bytes) {
      const refused = headerVerdict(bytes);
      if (refused) return refused;
      try {
        return await run<PdfVerdict>(bytes);
      } catch (e) {
        const err = e as Error & { code?: string };
        if (err.name === 'TimeoutError')
          throw new Error(
            `The PDF was not checked within ${Math.round((waitLimitMs ?? timeoutMs * 20) / 1000)} s: the PDF check threads had no CPU for it (load); it is checked again`,
          );
        if (err.name === 'AbortError') return { ok: false, reason: intakeReason('pdf_check_timeout', { seconds: Math.round(timeoutMs / 1000) }) };
        // the thread's exit (out of memory) is the operators' to read, not the sender's
        if (!closed && DIED_ON_FILE.test(`${err.code ?? ''} ${err.message}`.trim())) return { ok: false, reason: intakeReason('pdf_too_complex') };
        throw err; // the thread never came up, or the pool closed: ours, transient
      }
    },
    async render(bytes) {
      try {
        return await run<RenderedXmlInvoice>(bytes, 'render');
      } catch (e) {
        // the time includes the wait in the pool's queue: under a burst that is load, not the file,
        // so it is a transient error (the job runs again), never the file's refusal
        if ((e as Error).name === 'AbortError' || (e as Error).name === 'TimeoutError')
          throw new Error(`The XML e-invoice was not rendered within ${Math.round(timeoutMs / 1000)} s (the PDF check threads are busy)`);
        throw e;
      }
    },
    async text(bytes) {
      try {
        return await run<string>(bytes, 'text', { maxPages: TEXT_PAGES });
      } catch (e) {
        // a PDF pdf.js cannot read has no text for us; the file's other evidence still counts
        if ((e as Error).name === 'AbortError' || (e as Error).name === 'TimeoutError' || !closed) return '';
        throw e;
      }
    },
    stats: () => ({ threads: pool?.threads.length ?? 0, checked: (pool?.completed ?? 0) - warmed, queued: pool?.queueSize ?? 0 }),
    heaps: () => heaps.totals(),
    warm() {
      if (closed) return;
      // an empty file is refused at once by each thread (one task each makes piscina start them all);
      // they end after idleMs without a file like any other
      const busy = threads().threads.length + threads().queueSize;
      for (let i = busy; i < size; i++) {
        threads()
          .run({ bytes: new Uint8Array(0) })
          .then(
            () => warmed++,
            () => {},
          );
      }
    },
    async close() {
      closed = true;
      await pool?.destroy();
    },
  };
}
