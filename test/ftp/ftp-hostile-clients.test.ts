// Hostile FTP clients (issue 49): a LIST pattern built to make a backtracking RegExp explode, and
// floods before login from one address. The service (every role in this process) must keep
// answering /healthz at once and keep serving clients of other addresses.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { run, section } from './ftp-client-jobs.ts';
import { ftpTestFile } from './ftp-harness.ts';

const CLIENTS = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients');
const t = ftpTestFile();

/** GET /healthz back to back until `done` settles: each answer's time in ms. */
async function healthLatencies(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const out: number[] = [];
  while (!finished || out.length < 5) {
    const started = performance.now();
    const res = await t.request('GET', '/healthz');
    out.push(performance.now() - started);
    expect(res.status).toBe(200);
  }
  return out;
}

const patternsJob = (remote: string, local: string, patterns: string[]) =>
  run('/usr/bin/python3', [path.join(CLIENTS, 'ftplib-patterns.py'), String(t.port), t.account.ftpUsername, t.account.liveKey, local, remote, ...patterns]);

describe('LIST patterns', () => {
  it('a pattern that backtracks as a RegExp (and a long one) is answered at once over FTPS; /healthz stays under 100 ms', async () => {
    const name = `${'a'.repeat(36)}.pdf`; // 40 characters
    const local = path.join(t.dir, 'pattern.pdf');
    fs.writeFileSync(local, await makePdf('pattern'));
    const uploaded = await patternsJob(name, local, []);
    expect(section(uploaded.stdout, 'UPLOAD'), uploaded.stderr).toMatch(/^226 /);
    // the upload's intake has run (it waits for its invoice): nothing else is busy in the process
    await expect.poll(async () => (await t.imports(t.account.liveKey)).find((r) => r.filename === name)?.status, { timeout: 20_000 }).toBe('waiting');
    await t.request('GET', '/healthz');
    const patterns = ['*a*a*a*a*a*a*a*a*b', `${'*a'.repeat(120)}*b`, '*a*a*a*.pdf'];
    const client = patternsJob('-', local, patterns);
    const latencies = await healthLatencies(client);
    const out = await client;
    expect(out.code, out.stderr).toBe(0);
    expect(Math.max(...latencies), latencies.map(Math.round).join(' ')).toBeLessThan(100);
    // no match: an empty listing and its 226; the third pattern lists the file
    expect(section(out.stdout, 'P0').trim()).toMatch(/^226 /);
    expect(section(out.stdout, 'P1').trim()).toMatch(/^226 /);
    expect(section(out.stdout, 'P2')).toContain(` ${name}\n`);
  });

  it('a pattern over the length cap or with a backwards range is refused with 550 and a reason', async () => {
    const out = await patternsJob('-', '-', ['*'.repeat(300), '[z-a]*', '*.pdf']);
    expect(out.code, out.stderr).toBe(0);
    expect(section(out.stdout, 'P0').trim()).toBe('550 Pattern too long (at most 255 characters)');
    expect(section(out.stdout, 'P1').trim()).toBe('550 Invalid range in pattern: z-a');
    expect(section(out.stdout, 'P2').trim()).toMatch(/226 /);
  });
});
