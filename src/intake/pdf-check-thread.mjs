// Worker thread of the PDF check pool. Plain .mjs so that it starts under any loader (vitest,
// `node --import tsx`, the build): it runs the one PDF check of the domain, from the module the
// pool names, and registers tsx first only when that module is TypeScript source.
import { parentPort, workerData } from 'node:worker_threads';

// pdf-lib reports recoverable oddities on the console; the verdict is what counts
console.log = console.warn = () => {};

if (workerData.checkerUrl.endsWith('.ts')) (await import('tsx/esm/api')).register();
const { checkPdf } = await import(workerData.checkerUrl);

parentPort.on('message', async ({ id, bytes }) => {
  let verdict;
  try {
    verdict = await checkPdf(bytes);
  } catch (e) {
    verdict = { ok: false, reason: `The PDF cannot be read: ${String(e?.message ?? e).split('\n')[0].slice(0, 200)}` };
  }
  parentPort.postMessage({ id, verdict });
});
parentPort.postMessage({ ready: true });
