// `npm start` runs the build (`npm run build` -> dist/, plain JavaScript, no TypeScript loader in
// the process): it must carry everything the sources have at run time, the migrations and the
// PDF check thread included. One file through the whole pipeline proves it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { spawnService, type ServiceProcess } from './service-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-build-'));
const adminToken = `adm_${randomToken(24)}`;
let service: ServiceProcess;
let base: string;

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: ROOT });
  service = spawnService(['api', 'worker'], { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `iitest${randomToken(8)}`, ADMIN_TOKEN: adminToken, DATA_DIR: dataDir }, 'build');
  base = await service.url();
}, 240_000);

afterAll(async () => {
  service?.signal('SIGKILL');
  await service?.exited;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, p: string, token: string, body?: unknown) {
  const res = await fetch(base + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('the build (npm start)', () => {
  it('runs from dist/ without tsx, migrates, and attaches an import after the PDF check thread has read it', async () => {
    expect(fs.existsSync(path.join(ROOT, 'dist/main.js'))).toBe(true);
    const args = (await fs.promises.readFile(`/proc/${service.proc.pid}/cmdline`, 'utf8')).split('\0');
    expect(args).toContain('dist/main.js');
    expect(args.join(' ')).not.toContain('tsx');

    const account = (await call('POST', '/admin/accounts', adminToken, { name: 'build' })).body;
    const key = account.liveKey as string;
    const customer = (await call('POST', '/v2/customers', key, { customerCode: 'B-1', name: 'Build BV' })).body;
    const invoice = await call('POST', '/v2/invoices', key, { customer: customer.id, invoiceNumber: 'BUILD-1', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' });
    expect(invoice.status).toBe(201);

    const good = await call('POST', '/v2/imports', key, { filename: 'BUILD-1.pdf', content: (await makePdf('build')).toString('base64') });
    expect(good.status).toBe(202);
    // starts with %PDF- (so the sniff passes) but pdf-lib cannot parse it: only the thread says so
    const broken = await call('POST', '/v2/imports', key, { filename: 'BUILD-1.pdf', content: Buffer.from('%PDF-1.7\nnot really a pdf').toString('base64') });
    expect(broken.status).toBe(202);

    const settled = async (id: string) => {
      for (let i = 0; i < 300; i++) {
        const r = (await call('GET', `/v2/imports/${id}`, key)).body;
        if (r.status === 'attached' || r.status === 'failed') return r;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`import ${id} did not settle`);
    };
    expect(await settled(good.body.id)).toMatchObject({ status: 'attached', invoice: invoice.body.id });
    const failed = await settled(broken.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/PDF/);
  }, 120_000);
});
