// CI runs the matching corpus (bench/matching-corpus.ts, `npm run corpus:matching`) as a process:
// every file of ../shared/corpora by POST /v2/imports and FTPS, under meaningless and conflicting
// names, against a service process of its own. It must exit 0: no file on a wrong invoice, every
// file whose e-invoice names an invoice of its total (credit notes' negative totals too) attached,
// no reason holding a library's message; its figures are printed for the log.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';

const TIMEOUT_MS = 15 * 60_000;

function runCorpus(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/matching-corpus.ts', '--wait-ms', '60000'], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('the matching corpus', () => {
  it('npm run corpus:matching: 0 wrong, every positive and negative total attached, no library message', { timeout: TIMEOUT_MS }, async () => {
    const { code, out } = await runCorpus();
    console.log(out); // the figures, for CI's log
    expect(out).toMatch(/^verdict: 0 wrong, 0 not attached although they should be, 0 reasons with a library's message$/m);
    // every channel and kind of name was measured, credit notes among the files
    for (const row of ['http     meaningless', 'http     conflict', 'ftp      meaningless', 'ftp      conflict']) expect(out).toContain(row);
    expect(out).toMatch(/with a negative total\)/);
    expect(out).not.toMatch(/with a 0 negative total|, 0 with a negative total/);
    expect(code, out.slice(-3000)).toBe(0);
  });
});
