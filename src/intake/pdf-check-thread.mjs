// The PDF check pool's tasks (a piscina worker). Plain .mjs so that it starts under any loader
// (vitest, `node --import tsx`, the build): the default task runs the one PDF check of the domain,
// `render` renders an XML e-invoice as a PDF, `text` reads a PDF's text; each from the module the pool names, and tsx is
// registered first only when those modules are TypeScript source.
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';

// Linux applies a nice value set for pid 0 to the calling thread alone: this thread's checks and
// renders yield the cores to the main thread (acknowledgements) and PostgreSQL; elsewhere it
// would apply to the whole process, so it is only set where it is the thread's own
if (workerData.priority > 0 && process.platform === 'linux') os.setPriority(0, workerData.priority);

// The pool counts a task's time limit in this thread's CPU time (thread-cpu-budget.ts): each task
// notes in its slot of the shared memory this thread's id and CPU time when it starts.
const slots = workerData.slots ? new Int32Array(workerData.slots) : undefined;
let tid = 0;
try {
  tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop()) || 0;
} catch {} // no /proc: the pool's clock decides
function started(slot) {
  if (!slots || !tid || !(slot >= 0)) return;
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    slots[slot * 2 + 1] = (Number(f[11]) + Number(f[12])) * 10;
    Atomics.store(slots, slot * 2, tid);
  } catch {} // as without /proc
}

// This thread's heap, for /metrics (thread-heaps.ts): a slot of the shared memory taken now, its
// heap noted there after each task.
const heapOwners = workerData.heaps ? new Int32Array(workerData.heaps.owners) : undefined;
const heapBytes = workerData.heaps ? new Float64Array(workerData.heaps.bytes) : undefined;
let heapSlot = -1;
for (let i = 0; heapOwners && i < heapOwners.length && heapSlot < 0; i++) if (Atomics.compareExchange(heapOwners, i, 0, threadId) === 0) heapSlot = i;
function noteHeap() {
  if (heapSlot < 0) return;
  const h = v8.getHeapStatistics();
  heapBytes[2 * heapSlot] = h.used_heap_size;
  heapBytes[2 * heapSlot + 1] = h.total_heap_size;
}

// pdf-lib reports recoverable oddities on the console; the verdict is what counts
console.log = console.warn = () => {};

if (workerData.checkerUrl.endsWith('.ts')) (await import('tsx/esm/api')).register();
const { checkPdf, damagedPdf } = await import(workerData.checkerUrl);
let fonts;

export default async function check({ bytes, slot }) {
  started(slot);
  try {
    return await checkPdf(bytes);
  } catch {
    return damagedPdf(); // a library's message never becomes a reason
  } finally {
    noteHeap();
  }
}

/** The PDF's text layer (formats/pdf-text.ts), '' when it has none (a scan). */
export async function text({ bytes, maxPages, slot }) {
  started(slot);
  try {
    return await (await import(workerData.textUrl)).readPdfText(bytes, maxPages);
  } finally {
    noteHeap();
  }
}

export async function render({ bytes, slot }) {
  started(slot);
  const { renderXmlInvoice } = await import(workerData.rendererUrl);
  fonts ??= { regular: fs.readFileSync(workerData.fonts.regular), bold: fs.readFileSync(workerData.fonts.bold) };
  try {
    return await renderXmlInvoice(bytes, fonts);
  } catch (e) {
    return {
      ok: false,
      reason: `The XML e-invoice could not be rendered: ${String(e?.message ?? e)
        .split('\n')[0]
        .slice(0, 200)}`,
    };
  } finally {
    noteHeap();
  }
}
