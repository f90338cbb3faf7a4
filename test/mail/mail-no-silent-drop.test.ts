// No silent drop: every attachment gets a record, a 7z archive says why it is not read, and the
// same outcome ends in the same IMAP folder (a PDF over 5 MB, in a whole message or in one too
// large to download whole, ends in Failed both times). Real Dovecot, the real intake pipeline.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { make7z, makeZip } from '../helpers/zip-archives.ts';
import { invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

let h: MailHarness;
let acct: MailAccount;
let seq = 0;

beforeAll(async () => {
  h = await startMailHarness({ mailRole: true });
  acct = await h.account();
});
afterAll(() => h?.close());

const msgId = () => `<drop-${Date.now().toString(36)}-${seq++}@supplier.example>`;
const SEVEN_Z_REASON = '7z archives are not read: send the PDFs or a ZIP';

describe('no silent drop', () => {
  it('Rechnungen.zip and Belege.7z: the ZIP is unpacked, the 7z has a failed record that says why', async () => {
    const inv = await h.invoice(acct.liveKey);
    const id = msgId();
    const zip = await makeZip([{ name: `${inv.invoiceNumber}.pdf`, bytes: await makePdf('zipped') }]);
    const sevenZ = await make7z([{ name: 'beleg.pdf', bytes: await makePdf('7z') }]);
    await h.dovecot.append(
      invoiceMail(
        acct.live,
        [
          { filename: 'Rechnungen.zip', content: zip },
          { filename: 'Belege.7z', content: sevenZ, contentType: 'application/x-7z-compressed' },
        ],
        { messageId: id },
      ),
    );
    const row = await h.moved(id);
    expect(row.outcome).toBe('processed');
    const files = await h.db.query<{ intake_id: string }>('select intake_id from mail_message_files where message_id = $1', [row.id]);
    const records = await Promise.all(files.map((f) => h.svc.container.intake.get(acct.liveScope, f.intake_id)));
    expect(records).toHaveLength(2);
    const byName = Object.fromEntries(records.map((r) => [r.filename, r]));
    expect(byName['Rechnungen.zip'].status).toBe('unpacked');
    expect(byName['Belege.7z']).toMatchObject({ status: 'failed', reason: SEVEN_Z_REASON, reasonCode: 'archive_not_read' });
    await until(
      async () => (await h.records(acct.liveScope)).some((r) => r.invoiceId === inv.id && r.status === 'attached'),
      30_000,
      'the zipped PDF to be attached',
    );
  });

  it('a message with only a 7z: failed with that reason, not "No PDF attached", in the failed mailbox', async () => {
    const id = msgId();
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: 'Belege.7z', content: await make7z([{ name: 'b.pdf', bytes: await makePdf('only 7z') }]) }], { messageId: id }),
    );
    const { row, records } = await h.settledRecords(id);
    expect(row).toMatchObject({ outcome: 'failed', reason: SEVEN_Z_REASON });
    expect(records).toEqual([expect.objectContaining({ filename: 'Belege.7z', status: 'failed', reason: SEVEN_Z_REASON })]);
    await until(async () => (await h.dovecot.count('Failed')) >= 1, 10_000, 'the message in Failed');
  });

  it('a PDF over 5 MB ends in Failed whether the message is read whole or only its parts', async () => {
    const big = Buffer.concat([await makePdf('big'), randomBytes(5.5 * 1024 * 1024)]);
    const whole = msgId();
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: 'huge.pdf', content: big }], { messageId: whole }));
    const a = await h.settledRecords(whole);
    expect(a.row).toMatchObject({ outcome: 'failed' });
    expect(a.row.reason).toMatch(/larger than/);
    expect(a.records).toEqual([expect.objectContaining({ status: 'failed', reasonCode: 'file_too_large' })]);

    // a poller to which every message is large, on its own mailboxes
    const box = 'DropLarge';
    const parts = msgId();
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: 'huge.pdf', content: big }], { messageId: parts }), box);
    const large = h.startPoller({
      imapUrl: h.dovecot.url(box),
      mailMaxMessageBytes: 1024,
      mailProcessedMailbox: 'DropLargeDone',
      mailFailedMailbox: 'DropLargeFailed',
    });
    const b = await h.settledRecords(parts);
    expect(b.row.outcome).toBe('failed');
    expect(b.records).toEqual([expect.objectContaining({ status: 'failed', reasonCode: 'attachment_too_large' })]);
    expect(await h.dovecot.count('DropLargeFailed')).toBe(1);
    expect(await h.dovecot.count('DropLargeDone')).toBe(0);
    await large.stop();
  });
});
