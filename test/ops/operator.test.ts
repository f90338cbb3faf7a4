// The operator's view: accounts listed and searched, disabled on every channel at once, failed
// files across accounts, through the admin API and the CLI, against a real listening service.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client as FtpClient } from 'basic-ftp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Database } from '../../src/db/database.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';

const root = path.resolve(import.meta.dirname, '../..');
const config = testConfig({ roles: ['api', 'ftp'], keyCacheMs: 60_000 });
let svc: RunningService;
let db: Database;
let url: string;

beforeAll(async () => {
  db = await openTestDatabase();
  svc = await startService(config, createLogger('silent'), { db });
  url = svc.apiUrl!;
});
afterAll(async () => {
  await svc?.stop();
  await db?.close();
});

const call = (method: string, p: string, opts: { key?: string; body?: unknown } = {}) =>
  httpClient(url)(method, p, { key: opts.key ?? config.adminToken, body: opts.body });

async function ftpLogin(user: string, password: string): Promise<number> {
  const client = new FtpClient(10_000);
  try {
    // FTPS (the role's self-signed certificate): plain FTP takes no API key (issue 44)
    await client.access({ host: '127.0.0.1', port: svc.ftpPort, user, password, secure: true, secureOptions: { rejectUnauthorized: false } });
    return 230;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  } finally {
    client.close();
  }
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/admin.ts', ...args],
      { cwd: root, env: { PATH: process.env.PATH!, ADMIN_URL: url, ADMIN_TOKEN: config.adminToken! }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as any).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('operators', () => {
  const accounts: Record<string, any> = {};
  it('GET /admin/accounts pages newest first and searches by name, id or FTP user', async () => {
    for (const name of ['Alpha Trading', 'Beta 100% BV', 'Gamma_Works']) accounts[name] = (await call('POST', '/admin/accounts', { body: { name } })).body;
    const first = await call('GET', '/admin/accounts?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((a: any) => a.name)).toEqual(['Gamma_Works', 'Beta 100% BV']);
    expect(first.body.items[0]).not.toHaveProperty('liveKey');
    const second = await call('GET', `/admin/accounts?limit=2&from=${first.body.next}`);
    expect(second.body.items.map((a: any) => a.name)).toEqual(['Alpha Trading']);
    expect(second.body.next).toBeNull();
    const names = async (q: string) => (await call('GET', `/admin/accounts?search=${encodeURIComponent(q)}`)).body.items.map((a: any) => a.name);
    expect(await names('alpha')).toEqual(['Alpha Trading']);
    expect(await names('100%')).toEqual(['Beta 100% BV']); // % and _ are text, not patterns
    expect(await names('a_w')).toEqual(['Gamma_Works']);
    expect(await names(accounts['Beta 100% BV'].id)).toEqual(['Beta 100% BV']);
    expect(await names(accounts['Alpha Trading'].ftpUsername.toUpperCase())).toEqual(['Alpha Trading']);
    expect(await names('nobody')).toEqual([]);
    expect((await call('GET', '/admin/accounts?limit=0')).body).toMatchObject({ status: 400, field: 'limit' });
    expect((await call('GET', '/admin/accounts', { key: 'wrong-token-of-some-length' })).status).toBe(401);
  });

  it('a disabled account: API 401 with a clear detail (even with its key cached), FTP 530, mail recorded as failed; enabled again it works', async () => {
    const beta = accounts['Beta 100% BV'];
    expect((await call('GET', '/v2/customers', { key: beta.liveKey })).status).toBe(200); // now cached on this node
    expect(await ftpLogin(beta.ftpUsername, beta.liveKey)).toBe(230);
    const off = await call('PATCH', `/admin/accounts/${beta.id}`, { body: { disabled: true } });
    expect(off.status).toBe(200);
    expect(off.body.disabled).toBe(true);
    for (const key of [beta.liveKey, beta.testKey]) {
      const refused = await call('GET', '/v2/customers', { key });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ status: 401, title: 'Unauthorized', detail: expect.stringMatching(/account is disabled/) });
    }
    expect(await ftpLogin(beta.ftpUsername, beta.liveKey)).toBe(530);
    expect(await ftpLogin(beta.ftpUsername, beta.testKey)).toBe(530);
    // what the mail channel does with a message to the account's import address
    const scope = await svc.container.accounts.findByImportAddress(beta.importAddresses.test);
    const mailed = await svc.intake.receive({ scope: scope!, channel: 'mail', sender: 'someone@example.org', filename: 'M-1.pdf', bytes: await makePdf('m') });
    expect(mailed).toMatchObject({ status: 'failed', reason: expect.stringMatching(/account is disabled/) });
    expect((await call('GET', `/admin/accounts/${beta.id}`)).body.disabled).toBe(true);

    expect((await call('PATCH', `/admin/accounts/${beta.id}`, { body: { disabled: false } })).body.disabled).toBe(false);
    expect((await call('GET', '/v2/customers', { key: beta.liveKey })).status).toBe(200);
    expect(await ftpLogin(beta.ftpUsername, beta.liveKey)).toBe(230);
    expect((await call('PATCH', '/admin/accounts/acc_nope', { body: { disabled: true } })).status).toBe(404);
  });

  it('GET /admin/imports?status=failed lists failed files of every account, refused ones included', async () => {
    const alpha = accounts['Alpha Trading'];
    const refused = await call('POST', '/v2/imports', {
      key: alpha.liveKey,
      body: { filename: 'X-1.pdf', content: Buffer.from('not a pdf').toString('base64') },
    });
    expect(refused.body.status).toBe('failed');
    const failed = await call('GET', '/admin/imports?status=failed');
    expect(failed.status).toBe(200);
    const rows = failed.body.items.map((r: any) => [r.account, r.mode, r.channel, r.filename]);
    expect(rows).toEqual([
      [alpha.id, 'live', 'http', 'X-1.pdf'],
      [accounts['Beta 100% BV'].id, 'test', 'mail', 'M-1.pdf'],
    ]);
    const paged = await call('GET', '/admin/imports?status=failed&limit=1');
    expect(paged.body.items).toHaveLength(1);
    expect((await call('GET', `/admin/imports?status=failed&limit=1&from=${paged.body.next}`)).body.items[0].filename).toBe('M-1.pdf');
    expect((await call('GET', '/admin/imports?status=broken')).status).toBe(400);
  });

  it('the CLI: list-accounts, disable-account, enable-account, failed-imports', async () => {
    const gamma = accounts.Gamma_Works;
    const list = await cli(['list-accounts', 'gamma']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${gamma.id}\\s+active\\s+${gamma.ftpUsername}`));
    const off = await cli(['disable-account', gamma.id]);
    expect(off.stdout).toMatch(/is disabled/);
    expect((await call('GET', '/v2/customers', { key: gamma.liveKey })).status).toBe(401);
    expect((await cli(['list-accounts', gamma.id])).stdout).toMatch(/disabled/);
    expect((await cli(['enable-account', gamma.id])).stdout).toMatch(/enabled again/);
    expect((await call('GET', '/v2/customers', { key: gamma.liveKey })).status).toBe(200);
    const failed = await cli(['failed-imports']);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(/X-1\.pdf.*not a PDF|X-1\.pdf.*PDF/i);
    expect(failed.stdout).toContain('M-1.pdf');
    const paged = JSON.parse((await cli(['list-accounts', '--json'])).stdout);
    expect(paged.items.length).toBe(3);
  }, 120_000);
});
