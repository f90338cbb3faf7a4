// Logs never carry API keys or the admin token, at any level, whatever happens.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainer, type Container } from '../../src/app/container.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Database } from '../../src/db/database.ts';
import { buildServer } from '../../src/http/server.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(chunk.toString());
    done();
  },
});
let db: Database;
let c: Container;
let app: Awaited<ReturnType<typeof buildServer>>;
const config = testConfig({ rateLimitMax: 5 });

beforeAll(async () => {
  db = await openTestDatabase();
  c = await createContainer(config, createLogger('trace', sink), { db });
  app = await buildServer(c, { adminToken: config.adminToken });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await c?.close();
  await db?.close();
});

describe('log redaction', () => {
  it('no key and no admin token appears in the log output', async () => {
    const admin = { authorization: `Bearer ${config.adminToken}` };
    const created = await app.inject({ method: 'POST', url: '/admin/accounts', headers: admin, payload: { name: 'Logged' } });
    const { id, liveKey, testKey } = created.json();
    const secrets = [config.adminToken!, liveKey, testKey];
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });

    await app.inject({ method: 'GET', url: '/v2/customers', headers: auth(liveKey) });
    await app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...auth(testKey), 'idempotency-key': 'log-1' },
      payload: { customerCode: 'L1', name: 'L' },
    });
    await app.inject({ method: 'POST', url: '/v2/customers', headers: auth(liveKey), payload: '{broken' });
    await app.inject({
      method: 'POST',
      url: '/v2/documents',
      headers: auth(liveKey),
      payload: { invoice: 'inv_x', filename: 'a.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') },
    });
    await app.inject({ method: 'GET', url: `/v2/customers?key=${liveKey}`, headers: auth(`${liveKey.slice(0, -1)}Z`) });
    for (let i = 0; i < 7; i++) await app.inject({ method: 'GET', url: '/v2/invoices', headers: auth(liveKey) }); // into the rate limit
    const rotated = (await app.inject({ method: 'POST', url: `/admin/accounts/${id}/keys/live`, headers: admin })).json().key;
    secrets.push(rotated);
    await app.inject({ method: 'GET', url: '/v2/customers', headers: auth(liveKey) }); // the old key, now refused
    await app.inject({ method: 'GET', url: `/admin/accounts/${id}`, headers: { authorization: `Bearer ${config.adminToken}x` } });
    // objects the service logs itself are redacted wherever the secret sits
    c.log.info({ key: liveKey, password: testKey, nested: { token: config.adminToken, authorization: `Bearer ${rotated}` } }, 'explicit');
    c.log.info({ req: { headers: { authorization: `Bearer ${liveKey}` } } }, 'request-shaped');

    const output = lines.join('');
    expect(lines.length).toBeGreaterThan(20); // trace level: the requests were logged
    expect(output).toContain('"statusCode":429');
    expect(output).toContain('[redacted]');
    expect(output).toContain('/v2/customers?key=live_[redacted]');
    for (const secret of secrets) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(secret.slice(5, 25)); // nor a recognisable part of it
    }
  });

  it('masks an operator-chosen ADMIN_TOKEN in a URL, percent-encoded keys, and a key typed into the FTP user field', async () => {
    const token = 'operator-chose-this-Secret!';
    const out: string[] = [];
    const log = createLogger('info', { write: (l: string) => void out.push(l) }, { secrets: [token] });
    const db2 = await openTestDatabase();
    const c2 = await createContainer(testConfig({ adminToken: token }), log, { db: db2 });
    const app2 = await buildServer(c2, { adminToken: token });
    try {
      await app2.ready();
      const acct = (
        await app2.inject({ method: 'POST', url: '/admin/accounts', headers: { authorization: `Bearer ${token}` }, payload: { name: 'Masked' } })
      ).json();
      const encoded = acct.liveKey.replace('_', '%5F');
      await app2.inject({ method: 'GET', url: `/v2/customers?api_key=${encoded}&t=${encodeURIComponent(token)}&raw=${token}` });
      await app2.inject({ method: 'GET', url: `/v2/customers?k=${acct.testKey.replace('_', '%5f')}` });
      // what the FTP channel logs when a key is typed as the user name
      c2.log.info({ session: 's1', username: acct.liveKey }, 'ftp login failed');
      c2.log.warn(`login of ${acct.testKey} refused`);
      const text = out.join('');
      expect(text).toContain('api_key=live_[redacted]');
      expect(text).toContain('"username":"live_[redacted]"');
      for (const secret of [token, encodeURIComponent(token), acct.liveKey, encoded, acct.testKey, acct.liveKey.slice(5, 25), acct.testKey.slice(5, 25)]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await app2.close();
      await c2.close();
      await db2.close();
    }
  });
});
