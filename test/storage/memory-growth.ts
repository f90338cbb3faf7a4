// The service's memory growth while some work runs, in this (the test's) process, where the
// service runs too: a collection before each sample, so what is measured is what the service
// holds, not garbage not yet collected (streamed-uploads tests).
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The largest growth of RSS, and of the heap with the buffers outside it, while `work` runs. */
export async function growth<T>(work: () => Promise<T>): Promise<{ result: T; rss: number; heap: number }> {
  gc();
  const base = process.memoryUsage();
  const heapOf = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external;
  let rss = 0;
  let heap = 0;
  const sample = setInterval(() => {
    gc();
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss - base.rss);
    heap = Math.max(heap, heapOf(m) - heapOf(base));
  }, 200);
  try {
    return { result: await work(), rss, heap };
  } finally {
    clearInterval(sample);
  }
}
