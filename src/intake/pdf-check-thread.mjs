// The PDF check pool's task (a piscina worker). Plain .mjs so that it starts under any loader
// (vitest, `node --import tsx`, the build): it runs the one PDF check of the domain, from the
// module the pool names, and registers tsx first only when that module is TypeScript source.
import { workerData } from 'piscina';

// pdf-lib reports recoverable oddities on the console; the verdict is what counts
console.log = console.warn = () => {};

if (workerData.checkerUrl.endsWith('.ts')) (await import('tsx/esm/api')).register();
const { checkPdf } = await import(workerData.checkerUrl);

export default async function check({ bytes }) {
  try {
    return await checkPdf(bytes);
  } catch (e) {
    return { ok: false, reason: `The PDF cannot be read: ${String(e?.message ?? e).split('\n')[0].slice(0, 200)}` };
  }
}
