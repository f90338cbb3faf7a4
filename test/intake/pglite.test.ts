// The core matching on embedded PGlite (the default database), with the workers in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { archiveImports, makeZip, pdfsNamed } from '../helpers/zip-archives.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;
let acct: Awaited<ReturnType<IntakeApp['account']>>;

beforeAll(async () => {
  const db = await openTestDatabase('pglite');
  expect(db.kind).toBe('pglite');
  t = await startIntakeApp({ db, config: { intakeBackoffMs: 300_000, intakeBackoffMaxMs: 300_000 } });
  acct = await t.account();
});
afterAll(async () => {
  await t?.close();
  await t?.db.close();
});

async function invoice(number: string) {
  const { container: c } = t.svc;
  const { customer } = await c.customers.create(acct.live, { customerCode: `C-${number}`, name: 'Lite BV' }, false);
  return c.invoices.create(acct.live, {
    customer: customer.id,
    invoiceNumber: number,
    invoiceDate: '01-02-2026',
    invoiceDuedate: '01-03-2026',
    invoiceTotal: '5.00',
  });
}
const receive = async (filename: string, text: string) =>
  (await t.svc.intake.receive({ scope: acct.live, channel: 'ftp', sender: 'lite', filename, bytes: await makePdf(text) })).id;

describe('matching on PGlite', () => {
  it('by id, by number, by case and NFC variants, and a late invoice wakes its file', async () => {
    const byId = await invoice('L-1');
    const byNumber = await invoice('L-2');
    const cased = await invoice('Lite-Case-3');
    const nfc = await invoice('L-\u00e9-4');
    const ids = [
      await receive(`${byId.id}.pdf`, 'a'),
      await receive('L-2.PDF', 'b'),
      await receive('lite-case-3.pdf', 'c'),
      await receive('L-e\u0301-4.pdf', 'd'),
      await receive('L-5.pdf', 'e'),
    ];
    const expected = [byId.id, byNumber.id, cased.id, nfc.id];
    for (let i = 0; i < 4; i++) expect(await t.waitFor(acct.liveKey, ids[i])).toMatchObject({ status: 'attached', invoice: expected[i] });
    expect((await t.waitFor(acct.liveKey, ids[4], (r) => r.status === 'waiting')).status).toBe('waiting');
    const late = await invoice('L-5');
    expect(await t.waitFor(acct.liveKey, ids[4])).toMatchObject({ status: 'attached', invoice: late.id });
    const list = await t.request('GET', '/v2/imports?status=attached', { key: acct.liveKey });
    expect(list.body.imports.map((r: any) => r.id)).toEqual([...ids].reverse());
  });

  it('a ZIP archive: its files staged in one transaction on the embedded database, each attached', async () => {
    const invoices = [await invoice('LZ-0'), await invoice('LZ-1'), await invoice('LZ-2')];
    const archive = await t.svc.intake.receive({
      scope: acct.live,
      channel: 'ftp',
      sender: 'lite',
      filename: 'lite.zip',
      bytes: await makeZip(await pdfsNamed('LZ-', 3)),
    });
    expect(archive).toMatchObject({ status: 'unpacked', reason: 'Unpacked into 3 files' });
    const files = await archiveImports(t.request, acct.liveKey, archive.id, 3);
    expect(files.map((f) => [f.status, f.invoice])).toEqual(invoices.map((i) => ['attached', i.id]));
  });
});
