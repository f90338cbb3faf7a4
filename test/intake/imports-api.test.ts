// The intake pipeline's scoping, the imports API and the test data purge, on PostgreSQL and the
// shared Redis (private prefix). Matching itself is in matching.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';
import { MATCHING_CONFIG, matchingCalls } from './matching-calls.ts';

let t: IntakeApp;
let acct: Awaited<ReturnType<IntakeApp['account']>>;

beforeAll(async () => {
  t = await startIntakeApp({ config: MATCHING_CONFIG });
  acct = await t.account();
});
afterAll(() => t?.close());

const { invoice, upload, contentOf, documentsOf } = matchingCalls(() => t);

describe('scoping', () => {
  it('a test-mode file never matches a live invoice, and each key sees only its own imports', async () => {
    const live = await invoice(acct.liveKey);
    const rec = await upload(acct.testKey, `${live.invoiceNumber}.pdf`, await makePdf('test mode'));
    expect((await t.waitFor(acct.testKey, rec.id, (r) => r.status !== 'received')).status).toBe('waiting');
    expect((await t.request('GET', `/v2/imports/${rec.id}`, { key: acct.liveKey })).status).toBe(404);
    const liveList = await t.request('GET', '/v2/imports?limit=250', { key: acct.liveKey });
    expect(liveList.body.imports.map((i: any) => i.id)).not.toContain(rec.id);
    const other = await t.account();
    expect((await t.request('GET', `/v2/imports/${rec.id}`, { key: other.testKey })).status).toBe(404);
    // a test invoice with that number now exists: the test file goes there
    const testInv = await invoice(acct.testKey, live.invoiceNumber);
    expect(await t.waitFor(acct.testKey, rec.id)).toMatchObject({ status: 'attached', invoice: testInv.id });
    expect(await documentsOf(live.id)).toHaveLength(0);
  });
});

describe('imports API', () => {
  it('lists newest first with pagination links and a status filter', async () => {
    const a = await t.account();
    const inv = await invoice(a.liveKey);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(a.liveKey, `${inv.invoiceNumber}.pdf`, await makePdf(`list ${i}`))).id);
    ids.push((await upload(a.liveKey, 'x/y.pdf', await makePdf('bad'))).id);
    for (const id of ids) await t.waitFor(a.liveKey, id);
    const page1 = await t.request('GET', '/v2/imports?Limit=2', { key: a.liveKey });
    expect(page1.status).toBe(200);
    expect(page1.body.count).toBe(2);
    expect(page1.body.imports.map((i: any) => i.id)).toEqual([ids[3], ids[2]]);
    expect(page1.body.links.previous).toBeNull();
    const next = new URL(page1.body.links.next.href);
    const page2 = await t.request('GET', `${next.pathname}${next.search}`, { key: a.liveKey });
    expect(page2.body.imports.map((i: any) => i.id)).toEqual([ids[1], ids[0]]);
    expect(page2.body.links.next).toBeNull();
    const failed = await t.request('GET', '/v2/imports?status=failed', { key: a.liveKey });
    expect(failed.body.imports.map((i: any) => i.id)).toEqual([ids[3]]);
    const attached = await t.request('GET', '/v2/imports?Status=attached', { key: a.liveKey });
    expect(attached.body.count).toBe(3);
    expect(attached.body.imports[0]).toMatchObject({
      resource: 'import',
      channel: 'http',
      sender: `api:${a.id}`,
      status: 'attached',
      invoice: inv.id,
      _links: {
        self: { href: expect.stringMatching(new RegExp(`/v2/imports/${ids[2]}$`)) },
        invoice: { href: expect.stringMatching(new RegExp(`/v2/invoices/${inv.id}$`)) },
      },
    });
    expect((await t.request('GET', '/v2/imports?status=lost', { key: a.liveKey })).body).toMatchObject({ status: 400, field: 'status' });
  });

  it('refuses bad bodies and unknown ids, and is documented in the OpenAPI document', async () => {
    expect((await t.request('POST', '/v2/imports', { key: acct.liveKey, body: { Filename: 'a.pdf' } })).body).toMatchObject({ status: 400, field: 'content' });
    expect((await t.request('POST', '/v2/imports', { key: acct.liveKey, body: { Filename: 'a.pdf', Content: 'not base64!' } })).status).toBe(400);
    const tooLong = await t.request('POST', '/v2/imports', { key: acct.liveKey, body: { Filename: 'a.pdf', Content: 'A'.repeat(5_242_884) } });
    expect(tooLong.body).toEqual({ status: 400, title: 'Bad Request', detail: 'Field content is longer than 5242880 characters', field: 'content' });
    expect((await t.request('POST', '/v2/imports', { body: { Filename: 'a.pdf', Content: '' } })).status).toBe(401);
    expect((await t.request('GET', '/v2/imports/imp_doesnotexist', { key: acct.liveKey })).body).toMatchObject({
      status: 404,
      detail: 'No import exists with id imp_doesnotexist.',
    });
    const doc = await t.request('GET', '/v2/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v2/imports', '/v2/imports/{import_id}']));
    expect(doc.body.paths['/v2/imports'].post.responses['202']).toBeDefined();
  });
});

describe('test data purge', () => {
  it('purges old test-mode intake rows and keeps live ones', async () => {
    const a = await t.account();
    const live = await t.svc.intake.receive({ scope: a.live, channel: 'ftp', sender: 's', filename: 'P-1.pdf', bytes: Buffer.from('no pdf') });
    const test = await t.svc.intake.receive({ scope: a.test, channel: 'ftp', sender: 's', filename: 'P-1.pdf', bytes: Buffer.from('no pdf') });
    await t.db.query(`update intake_staging set received_at = now() - interval '40 days' where id = any($1)`, [[live.id, test.id]]);
    const counts = await t.svc.container.maintenance.purgeTestData(30);
    expect(counts.intake_staging).toBeGreaterThanOrEqual(1); // counted per table (repositories/account-tables.ts)
    const left = await t.db.query<{ id: string }>('select id from intake_records where id = any($1)', [[live.id, test.id]]);
    expect(left.map((r) => r.id)).toEqual([live.id]);
  });

  it('keeps an old test-mode file whose bytes the document of a younger invoice still shares', async () => {
    const a = await t.account();
    const inv = await invoice(a.testKey);
    const pdf = await makePdf('old file, young invoice');
    const rec = await t.waitFor(a.testKey, (await upload(a.testKey, `${inv.invoiceNumber}.pdf`, pdf)).id);
    expect(rec.status).toBe('attached');
    await t.db.query(`update intake_staging set received_at = now() - interval '40 days' where id = $1`, [rec.id]);
    await t.svc.container.maintenance.purgeTestData(30);
    expect(Buffer.compare(await contentOf(a.testKey, inv.id), pdf)).toBe(0);

    await t.db.query(`update invoices set created_at = now() - interval '40 days' where id = $1`, [inv.id]);
    await t.svc.container.maintenance.purgeTestData(30);
    expect(await t.db.query('select id from intake_staging where id = $1', [rec.id])).toEqual([]);
    expect(await documentsOf(inv.id)).toEqual([]);
  });
});
