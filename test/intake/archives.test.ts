// ZIP archives through POST /v2/imports, on the real service (API + workers, PostgreSQL, Redis):
// every PDF in an archive becomes an import of its own, linked to the archive's import, and is
// matched like any file; archives and entries over the limits are refused with their reasons.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { archiveImports, invoicesNumbered, make7z, makeZip, pdfsNamed } from '../helpers/zip-archives.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;
let acct: Awaited<ReturnType<IntakeApp['account']>>;

beforeAll(async () => {
  t = await startIntakeApp();
  acct = await t.account();
});
afterAll(() => t?.close());

const post = (filename: string, bytes: Buffer, key = acct.liveKey) =>
  t.request('POST', '/v2/imports', { key, body: { filename, content: bytes.toString('base64') } });
const stagedOf = async (archiveId: string) =>
  (await t.db.query<{ n: number }>('select count(*)::int as n from intake_staging where archive_id = $1', [archiveId]))[0].n;

describe('ZIP archives by POST /v2/imports', () => {
  it('a 7z or RAR archive: 202 with a failed import that says why (no channel reads them)', async () => {
    // an account of its own: the ZIP test below counts every http import of its account
    const { liveKey } = await t.account();
    const sevenZ = await post('Belege.7z', await make7z([{ name: 'a.pdf', bytes: await makePdf('7z') }]), liveKey);
    expect(sevenZ.status).toBe(202);
    expect(sevenZ.body).toMatchObject({
      filename: 'Belege.7z',
      status: 'failed',
      reason: '7z archives are not read: send the PDFs or a ZIP',
      reasonCode: 'archive_not_read',
    });
    const rar = await post('Belege.rar', Buffer.from('Rar!\x1a\x07\x00 not really', 'latin1'), liveKey);
    expect(rar.body).toMatchObject({ status: 'failed', reason: 'RAR archives are not read: send the PDFs or a ZIP' });
  });

  it('a ZIP of 50 PDFs named after invoice numbers: 202 once all 50 are staged, then 50 attached imports linked to the archive', async () => {
    const invoices = await invoicesNumbered(t.svc.container, acct.live, 'HZ-', 50);
    // in folders, as accounting exports often are
    const files = (await pdfsNamed('HZ-', 50)).map((f, i) => ({ ...f, name: `2026/${i % 2 ? 'q1' : 'q2'}/${f.name}` }));
    const res = await post('day.zip', await makeZip(files));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      resource: 'import',
      filename: 'day.zip',
      status: 'unpacked',
      reason: 'Unpacked into 50 files',
      archive: null,
      channel: 'http',
    });
    expect(await stagedOf(res.body.id)).toBe(50); // staged before the 202, not after
    // written after its files: the newest import
    expect((await t.request('GET', '/v2/imports?limit=1', { key: acct.liveKey })).body.imports[0].id).toBe(res.body.id);

    const imports = await archiveImports(t.request, acct.liveKey, res.body.id, 50);
    expect(imports.map((r) => r.filename)).toEqual(invoices.map((i) => `${i.invoiceNumber}.pdf`));
    expect(imports.filter((r) => r.status !== 'attached')).toEqual([]);
    expect(imports.map((r) => r.invoice)).toEqual(invoices.map((i) => i.id));
    expect(imports[0]).toMatchObject({ channel: 'http', sender: `api:${acct.id}`, archive: res.body.id });
    expect(imports[0]._links.archive.href).toMatch(new RegExp(`/v2/imports/${res.body.id}$`));
    // the archive keeps no bytes of its own, and is never matched itself
    expect((await t.request('GET', `/v2/imports/${res.body.id}`, { key: acct.liveKey })).body).toMatchObject({ status: 'unpacked', invoice: null });
    const own = await t.db.query<{ content_sha256: unknown }>('select content_sha256 from intake_staging where id = $1', [res.body.id]);
    expect(own[0].content_sha256).toBeNull();
    // the overview counts files, not the archive that carried them
    const counts = await t.svc.container.intake.counts(acct.live, new Date(Date.now() - 3_600_000));
    expect(counts.filter((c) => c.channel === 'http')).toEqual([{ channel: 'http', status: 'attached', count: 50 }]);
    // the archive itself cannot be retried or attached: its files can
    const retry = await t.request('POST', `/v2/imports/${res.body.id}/retry`, { key: acct.liveKey });
    expect(retry).toMatchObject({
      status: 409,
      body: { status: 409, detail: expect.stringMatching(/is unpacked; only a failed or waiting file can be retried/) },
    });
    const attach = await t.request('POST', `/v2/imports/${res.body.id}/attach`, { key: acct.liveKey, body: { invoice: invoices[0].id } });
    expect(attach.status).toBe(409);
  });

  it('an entry that is not a PDF, a nested zip and a zip bomb are failed imports that say why; the PDFs beside them attach', async () => {
    const [inv] = await invoicesNumbered(t.svc.container, acct.live, 'MX-', 1);
    const inner = await makeZip(await pdfsNamed('IN-', 2));
    const res = await post(
      'mixed.zip',
      await makeZip([
        { name: 'MX-0.pdf', bytes: await makePdf('mixed') },
        { name: 'notes.txt', bytes: Buffer.from('not an invoice') },
        { name: 'inner.zip', bytes: inner },
        { name: 'disguised.pdf', bytes: inner }, // a zip named .pdf
        { name: 'bomb.pdf', bytes: Buffer.alloc(4_000_000) }, // zeros: about 1000 to 1
      ]),
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'unpacked', reason: 'Unpacked into 5 files, 4 of them refused' });
    const imports = await archiveImports(t.request, acct.liveKey, res.body.id, 5);
    const by = Object.fromEntries(imports.map((r) => [r.filename, r]));
    expect(by['MX-0.pdf']).toMatchObject({ status: 'attached', invoice: inv.id });
    expect(by['notes.txt']).toMatchObject({ status: 'failed', reason: 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' });
    expect(by['inner.zip']).toMatchObject({ status: 'failed', reason: 'inner.zip is an archive inside the ZIP archive; nested archives are not unpacked' });
    expect(by['disguised.pdf']).toMatchObject({
      status: 'failed',
      reason: 'disguised.pdf is an archive inside the ZIP archive; nested archives are not unpacked',
    });
    expect(by['bomb.pdf'].status).toBe('failed');
    expect(by['bomb.pdf'].reason).toMatch(/^bomb\.pdf in the ZIP archive is compressed \d+ to 1 \(above 100 to 1\): refused as a possible zip bomb$/);
    expect(await t.svc.container.jobs.bullQueue('intake').getJob(by['bomb.pdf'].id)).toBeUndefined();
  });

  it('an encrypted entry (zip -P) is refused with its reason; an archive name longer than any invoice number is fine', async () => {
    const long = `${'Export of the invoices of March 2026 '.repeat(4)}.zip`;
    const named = await post(long, await makeZip(await pdfsNamed('LN-', 1)));
    expect(named.body).toMatchObject({ filename: long, status: 'unpacked' });
    expect((await post('../up.zip', await makeZip(await pdfsNamed('UP-', 1)))).body).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/has path parts/),
    });
    const res = await post('locked.zip', await makeZip([{ name: 'LK-1.pdf', bytes: await makePdf('locked') }], { password: 'secret' }));
    expect(res.status).toBe(202);
    const [file] = await archiveImports(t.request, acct.liveKey, res.body.id, 1);
    expect(file).toMatchObject({ filename: 'LK-1.pdf', status: 'failed', reason: 'LK-1.pdf in the ZIP archive is encrypted; send it without a password' });
  });

  it('an archive of 1,001 entries, one that is not a ZIP, and one without files are refused whole: one failed import, nothing unpacked', async () => {
    const many = await makeZip(Array.from({ length: 1001 }, (_, i) => ({ name: `M-${i}.pdf`, bytes: Buffer.from(`%PDF-1.4 ${i}`) })));
    const cases: [string, Buffer, string][] = [
      ['many.zip', many, 'The ZIP archive has 1001 entries; at most 1000 are accepted'],
      [
        'broken.zip',
        await makePdf('not a zip'),
        'The ZIP archive cannot be read: it is damaged or no ZIP archive; pack the files again and send the new archive',
      ],
      ['folders.zip', await makeZip([{ name: '__MACOSX/._x.pdf', bytes: Buffer.from('x') }]), 'The ZIP archive has no files'],
    ];
    for (const [name, bytes, reason] of cases) {
      const res = await post(name, bytes);
      expect(res.status, name).toBe(202);
      expect(res.body, name).toMatchObject({ filename: name, status: 'failed', reason, size: bytes.length });
      expect(await stagedOf(res.body.id), name).toBe(0);
    }
  });

  it('a ZIP_MAX_ENTRIES / ZIP_MAX_TOTAL_BYTES of its own: the archive is refused with the configured numbers', async () => {
    const small = await startIntakeApp({ config: { zipMaxEntries: 3, zipMaxTotalBytes: 4096 } });
    try {
      const a = await small.account();
      const send = (name: string, bytes: Buffer) =>
        small.request('POST', '/v2/imports', { key: a.liveKey, body: { filename: name, content: bytes.toString('base64') } });
      const four = await send('four.zip', await makeZip(Array.from({ length: 4 }, (_, i) => ({ name: `${i}.pdf`, bytes: Buffer.from('%PDF-1.4') }))));
      expect(four.body).toMatchObject({ status: 'failed', reason: 'The ZIP archive has 4 entries; at most 3 are accepted' });
      const large = await send(
        'large.zip',
        await makeZip([
          { name: 'a.pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000)]) },
          { name: 'b.pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000)]) },
        ]),
      );
      expect(large.body).toMatchObject({ status: 'failed', reason: 'The ZIP archive is larger than 4096 bytes' });
      const text = Buffer.from(`%PDF-1.4\n${'0 0 m 1 1 l S\n'.repeat(250)}`); // compresses well: a small archive that unpacks large
      const unpacks = await send(
        'dense.zip',
        await makeZip([
          { name: 'a.pdf', bytes: text },
          { name: 'b.pdf', bytes: text },
        ]),
      );
      expect(unpacks.body).toMatchObject({ status: 'failed', reason: `The ZIP archive unpacks to ${2 * text.length} bytes; at most 4096 are accepted` });
    } finally {
      await small.close();
    }
  });
});
