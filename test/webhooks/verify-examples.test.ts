// The verification programs of docs/webhooks.md, taken from the document as written, run as real
// processes and receive real deliveries: they accept ours and refuse a forged one.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';
import { freePort } from '../../testkit/ports.ts';
import { startIntakeApp, type IntakeApp } from '../intake/intake-harness.ts';

let t: IntakeApp;
let acct: Awaited<ReturnType<IntakeApp['account']>>;
const procs: ChildProcess[] = [];

beforeAll(async () => {
  t = await startIntakeApp({ config: { webhookAllowPrivate: true } });
  acct = await t.account();
});
afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  await t?.close();
});

/** The fenced block after `<!-- example: name -->` in docs/webhooks.md. */
function example(name: string): string {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');
  const m = new RegExp(`<!-- example: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
  if (!m) throw new Error(`no example ${name} in docs/webhooks.md`);
  return m[1];
}

async function run(cmd: string[], env: Record<string, string>) {
  const lines: string[] = [];
  const p = spawn(cmd[0], cmd.slice(1), { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(p);
  let err = '';
  p.stderr!.on('data', (c) => (err += c));
  p.stdout!.setEncoding('utf8').on('data', (c: string) => lines.push(...c.split('\n').filter(Boolean)));
  await expect.poll(() => lines.includes('listening') || err, { timeout: 60_000 }).toBe(true);
  return { lines, json: () => lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) };
}

describe.each([
  ['TypeScript', 'verify-ts', '.ts', (file: string) => [process.execPath, '--import', 'tsx', file]],
  ['Python', 'verify-py', '.py', (file: string) => ['python3', file]],
])('the %s example', (_lang, name, ext, cmd) => {
  it('verifies a real delivery and refuses a forged one', async () => {
    // inside the repository, so that the TypeScript one finds standardwebhooks
    const dir = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.verify-'));
    const file = path.join(dir, `verify${ext}`);
    fs.writeFileSync(file, example(name));
    const port = await freePort();
    const created = await t.request('POST', '/v2/webhooks', { key: acct.testKey, body: { url: `http://127.0.0.1:${port}/`, events: ['import.failed'] } });
    const receiver = await run(cmd(file), { PORT: String(port), WEBHOOK_SECRET: created.body.secret });
    const imp = await t.request('POST', '/v2/imports', { key: acct.testKey, body: { filename: 'x.pdf', content: Buffer.from('no pdf').toString('base64') } });
    await expect.poll(() => receiver.json().length, { timeout: 20_000 }).toBe(1);
    const [verified] = receiver.json();
    expect(verified).toMatchObject({ type: 'import.failed' });
    expect(verified.verified).toMatch(/^evt_/);
    const log = (await t.request('GET', `/v2/webhooks/${created.body.id}/deliveries`, { key: acct.testKey })).body.deliveries;
    expect(log[0]).toMatchObject({ statusCode: 204, success: true, event: verified.verified });
    expect(imp.body.status).toBe('failed');

    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: '{"id":"evt_x","type":"invoice.paid"}',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_x',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
    });
    expect(forged.status).toBe(400);
    await t.request('DELETE', `/v2/webhooks/${created.body.id}`, { key: acct.testKey });
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});
