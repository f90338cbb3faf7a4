// `npm start` runs the build (`npm run build` -> dist/, plain JavaScript, no TypeScript loader in
// the process): it must carry everything the sources have at run time, the migrations and the
// PDF check thread included. One file through the whole pipeline proves it. The build goes to a
// temporary directory (BUILD_OUT), never to the dist/ of the checkout the suite runs in.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { ROOT } from '../../testkit/paths.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { waitForImport } from '../helpers/imports.ts';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-build-'));
const out = path.join(work, 'dist');
const dataDir = path.join(work, 'data');
const checkoutDist = () => fs.statSync(path.join(ROOT, 'dist'), { throwIfNoEntry: false })?.ino;
const distBefore = checkoutDist();
const adminToken = `adm_${randomToken(24)}`;
let service: ServiceProcess;
let base: string;

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: ROOT, env: { ...process.env, BUILD_OUT: out } });
  // the build resolves its packages as dist/ does: from the node_modules beside it
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
  service = spawnService(
    ['api', 'worker'],
    { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `iitest${randomToken(8)}`, ADMIN_TOKEN: adminToken, DATA_DIR: dataDir },
    { build: out },
  );
  base = await service.url();
}, 240_000);

afterAll(async () => {
  service?.signal('SIGKILL');
  await service?.exited;
  fs.rmSync(work, { recursive: true, force: true });
});

const call = (method: string, p: string, token: string, body?: unknown) => httpClient(base)(method, p, { key: token, body });

describe('the build (npm start)', () => {
  it('runs from dist/ without tsx, migrates, and attaches an import after the PDF check thread has read it', async () => {
    expect(fs.existsSync(path.join(out, 'main.js'))).toBe(true);
    // TypeBox is bundled into the one module that re-exports it (package.json's build): the
    // service below reads its config and builds every route's schemas from it, and nothing imports the package itself
    const typebox = fs.readFileSync(path.join(out, 'config/typebox.js'), 'utf8');
    expect(typebox).not.toMatch(/from\s*["']typebox/);
    expect(typebox).toMatch(/export\s*\{[^}]*\bType\b/);
    expect(typebox).toMatch(/export\s*\{[^}]*\bCompile\b/);
    expect(fs.readFileSync(path.join(out, 'http/schemas/typebox.js'), 'utf8')).not.toMatch(/from\s*["']typebox/);
    expect(checkoutDist()).toBe(distBefore); // the checkout's dist/ untouched
    const args = (await fs.promises.readFile(`/proc/${service.proc.pid}/cmdline`, 'utf8')).split('\0');
    expect(args).toContain(path.join(out, 'main.js'));
    expect(args.join(' ')).not.toContain('tsx');

    const account = (await call('POST', '/admin/accounts', adminToken, { name: 'build' })).body;
    const key = account.liveKey as string;
    const customer = (await call('POST', '/v2/customers', key, { customerCode: 'B-1', name: 'Build BV' })).body;
    const invoice = await call('POST', '/v2/invoices', key, {
      customer: customer.id,
      invoiceNumber: 'BUILD-1',
      invoiceDate: '01-02-2026',
      invoiceDuedate: '01-03-2026',
      invoiceTotal: '10.00',
    });
    expect(invoice.status).toBe(201);

    const good = await call('POST', '/v2/imports', key, { filename: 'BUILD-1.pdf', content: (await makePdf('build')).toString('base64') });
    expect(good.status).toBe(202);
    // starts with %PDF- (so the sniff passes) but pdf-lib cannot parse it: only the thread says so
    const broken = await call('POST', '/v2/imports', key, { filename: 'BUILD-1.pdf', content: Buffer.from('%PDF-1.7\nnot really a pdf').toString('base64') });
    expect(broken.status).toBe(202);

    const settled = (id: string) => waitForImport((method, p, o) => call(method, p, o.key), key, id);
    expect(await settled(good.body.id)).toMatchObject({ status: 'attached', invoice: invoice.body.id });
    const failed = await settled(broken.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/PDF/);
  }, 120_000);

  it('serves the dashboard from dist/: its pages under a strict CSP and its assets from the package', async () => {
    const page = await fetch(`${base}/dashboard/sign-in`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'; style-src 'self'");
    for (const asset of ['htmx.min.js', 'dashboard.js', 'dashboard.css']) expect((await fetch(`${base}/dashboard/assets/${asset}`)).status, asset).toBe(200);
  });

  it('SIGTERM to the `npm start` process stops the service: no process is left', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-npm-start-'));
    // npm start in a folder laid out like the checkout (package.json, dist/, node_modules) with the
    // build above as its dist/: --ignore-scripts, since prestart would rebuild it (and a clean clone
    // has no dist/ of its own)
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(work, 'package.json'));
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        DATA_DIR: path.join(dir, 'data'),
        PORT: '0',
        FTP_PORT: '0',
        ROLES: 'api,worker',
        REDIS_PREFIX: `iitest${randomToken(8)}`,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (c) => (out += c));
    npm.stderr!.on('data', (c) => (out += c));
    const npmExit = new Promise((resolve) => npm.once('exit', resolve));
    let tree: number[] = [];
    try {
      await vi.waitFor(() => expect(out).toContain('api listening'), { timeout: 120_000, interval: 200 });
      tree = descendants(npm.pid!);
      expect(tree.length).toBeGreaterThan(0); // the service (and any shell npm put between)
      process.kill(npm.pid!, 'SIGTERM');
      await npmExit;
      await expect.poll(() => [npm.pid!, ...tree].filter(alive), { timeout: 30_000, interval: 100 }).toEqual([]);
      expect(out).toContain('"msg":"stopped"');
    } finally {
      for (const pid of [npm.pid!, ...tree]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

/** Every process below `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a zombie waits only for its parent to read its status: it runs nothing
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
