// The authorization matrix for upload keys (issue 44, "How we will know"): every route of the
// OpenAPI document, with path ids of the account's real resources, asked with a revoked upload key
// (401), an upload key from outside its networks (403, saying so), another account's upload key
// and the other mode's (403 outside POST/GET /v2/imports; there they see and add only their own):
// nothing of the account is readable in any answer, and nothing of it changed. (An upload key of
// the account itself on every route: test/api/upload-keys.test.ts.)
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { expectError } from '../helpers/error-body.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { postImport } from '../helpers/imports.ts';
import type { TestApp } from '../helpers/test-app.ts';

it.beforeAll(async ({ t }) => void t);

const make = async (t: TestApp, key: string, body: Record<string, unknown>) => {
  const res = await t.request('POST', '/v2/account/upload-keys', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; key: string };
};

/** What the account has, counted per table (live and test apart): the same after = nothing changed. */
const snapshot = async (t: TestApp, accountId: string) => {
  const tables = ['customers', 'invoices', 'documents', 'upload_keys', 'webhooks', 'intake_records', 'api_keys', 'ssh_keys', 'trail_entries'];
  const out: Record<string, unknown> = {};
  for (const table of tables)
    out[table] = await t.db.query(`select mode, count(*)::int as n from ${table} where account_id = $1 group by mode order by mode`, [accountId]);
  out.senders = (await t.db.query('select * from sender_policies where account_id = $1 order by mode', [accountId]).catch(() => [])).length;
  return out;
};

describe('upload keys that must open nothing of the account', () => {
  it("every route with a revoked key, a key from outside its networks, another account's and the other mode's: 401/403, nothing readable, nothing changed", async ({
    t,
  }) => {
    const acct = await t.createAccount();
    const key = acct.liveKey;
    const pdf = await makePdf('matrix');
    const file = await postImport(t.request, key, 'matrix-secret-file.pdf', pdf);
    const inv = await createInvoice(t, key);
    const hook = await t.request('POST', '/v2/webhooks', { key, body: { url: 'https://example.com/hook', events: ['import.attached'] } });
    const own = await make(t, key, { name: 'Own job' });
    const ids: Record<string, string> = {
      import_id: file.id,
      invoice_id: inv.id,
      customer_id: inv.customer?.id ?? inv.customer,
      webhook_id: hook.body?.id,
      key_id: own.id,
    };
    // the live mode's things (the account's id is the test mode's too: its own uploads name it as sender)
    const secrets = [file.id, 'matrix-secret-file.pdf', inv.id, inv.invoiceNumber, own.id];

    const revoked = await make(t, key, { name: 'Revoked job' });
    expect((await t.request('DELETE', `/v2/account/upload-keys/${revoked.id}`, { key })).status).toBe(204);
    const outside = await make(t, key, { name: 'Branch scanner', networks: ['192.0.2.0/24'] });
    const other = await t.createAccount();
    const foreign = await make(t, other.liveKey, { name: 'Their job' });
    const otherMode = await make(t, acct.testKey, { name: 'Test job' });
    const before = await snapshot(t, acct.id);

    const spec = (await t.request('GET', '/v2/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const cases: [string, string, (m: string, path: string) => number | 'own'][] = [
      ['revoked', revoked.key, () => 401],
      ['outside its networks', outside.key, () => 403],
      ["another account's", foreign.key, (m, path) => (path === '/v2/imports' && (m === 'GET' || m === 'POST') ? 'own' : 403)],
      ["the other mode's", otherMode.key, (m, path) => (path === '/v2/imports' && (m === 'GET' || m === 'POST') ? 'own' : 403)],
    ];
    let checked = 0;
    for (const [name, upKey, expected] of cases) {
      for (const [path, ops] of Object.entries(spec.paths)) {
        if (!path.startsWith('/v2/') || path === '/v2/openapi.json') continue;
        for (const method of Object.keys(ops)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          const m = method.toUpperCase();
          const url = path.replace(/\{([^}]+)\}/g, (_, p: string) => ids[p] ?? 'x_123');
          const body =
            m === 'GET' || m === 'DELETE'
              ? {}
              : {
                  body: {
                    name: 'Changed',
                    filename: 'changed.pdf',
                    content: pdf.toString('base64'),
                    invoice: inv.invoiceNumber,
                    policy: 'listed',
                    senders: ['@evil.example'],
                    url: 'https://evil.example/x',
                    events: ['import.attached'],
                    publicKey: 'ssh-ed25519 AAAA',
                  },
                };
          const res = await t.request(m, url, { key: upKey, ...body });
          const want = expected(m, path);
          const at = `${name} ${m} ${url}`;
          if (want === 'own') expect(res.status, at).toBeLessThan(300);
          else if (want === 401) expectError(res, 401);
          else expect(res.status, `${at}: ${JSON.stringify(res.body)}`).toBe(403);
          if (name === 'outside its networks') expect(res.body.detail, at).toMatch(/may not be used from 127\.0\.0\.1/);
          for (const s of secrets) expect(JSON.stringify(res.body), `${at} shows ${s}`).not.toContain(s);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(4 * 20);
    expect(await snapshot(t, acct.id)).toEqual({ ...before, intake_records: expect.anything() });
    // the other mode's POST landed in test mode, another account's in that account: the live files are as they were
    const live = (await t.request('GET', '/v2/imports?limit=250', { key })).body.imports.map((r: { id: string }) => r.id);
    expect(live).toEqual([file.id]);
    const afterRecords = (await snapshot(t, acct.id)).intake_records as { mode: string; n: number }[];
    expect(afterRecords.find((r) => r.mode === 'live')?.n).toBe(1);
  });
});
