// The operator's repair: a message set aside in Failed is moved back into the import mailbox (in
// any mail client) after the cause was fixed, and is processed again with a fresh claim. The
// same duplicate protection holds: a processed message moved back is only moved, and copies of a
// failed message that were in the mailbox together are handed over once.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

let h: MailHarness;
let acct: MailAccount;
let seq = 0;
const BOX = 'Repair';
const DONE = 'RepairDone';
const FAILED = 'RepairFailed';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/mail/${name}`, import.meta.url));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function delivered(file: string): { raw: Buffer; id: string } {
  const id = `<repair-${Date.now().toString(36)}-${seq++}@test.example>`;
  const text = fixture(file)
    .toString('latin1')
    .replace(/^Message-ID: <[^>]+>/im, `Message-ID: ${id}`);
  return { raw: Buffer.from(`Delivered-To: ${acct.live}\r\n${text}`, 'latin1'), id };
}

/** What an operator does in a mail client: move every message of one folder to another. */
async function moveAll(from: string, to: string): Promise<void> {
  const c = await h.dovecot.client();
  await c.mailboxOpen(from);
  await c.messageMove('1:*', to);
  await c.mailboxClose();
}

const rowOf = async (id: string) => (await h.db.query<any>('select * from mail_messages where header_message_id = $1', [id]))[0];

beforeAll(async () => {
  h = await startMailHarness();
  acct = await h.account();
});
afterAll(() => h?.close());

describe('a message moved back from Failed', () => {
  it('is processed again with a fresh claim once the cause is fixed, and a processed one moved back is only moved', async () => {
    await h.invoice(acct.liveKey, 'INV-TNEF-1');
    const { raw, id } = delivered('outlook-tnef.eml');
    await h.dovecot.appendRaw(raw, BOX);
    const boxes = { imapUrl: h.dovecot.url(BOX), mailProcessedMailbox: DONE, mailFailedMailbox: FAILED };
    // a limit set too low: the winmail.dat of a large message is not downloaded, the message fails
    const strict = h.startPoller({ ...boxes, mailMaxMessageBytes: 1024, zipMaxTotalBytes: 100 });
    const failed = await h.moved(id);
    expect(failed).toMatchObject({ outcome: 'failed', reason: 'Every PDF attachment is too large' });
    await strict.stop();
    expect(await h.dovecot.count(FAILED)).toBe(1);

    // the operator raises the limit and moves the message back
    const fixed = h.startPoller(boxes);
    await moveAll(FAILED, BOX);
    await until(async () => (await rowOf(id))?.outcome === 'processed' && (await rowOf(id)).state === 'moved', 30_000, 'the message to be processed again');
    const row = await rowOf(id);
    expect(row.id).toBe(failed.id);
    expect(row.attempts).toBe(failed.attempts + 1);
    const { records } = await h.settledRecords(id);
    expect(records).toEqual([expect.objectContaining({ filename: 'INV-TNEF-1.pdf', status: 'attached', sha256: sha(fixture('pdfs/INV-TNEF-1.pdf')) })]);
    expect(h.logs.some((l) => l.includes('back in the mailbox after it was set aside') && l.includes(row.id) && l.includes('"outcome":"failed"'))).toBe(true);
    expect(await h.dovecot.count(DONE)).toBe(1);
    expect(await h.dovecot.count(FAILED)).toBe(0);
    // the first try's failed record stays as history; nothing is staged twice
    const all = (await h.records(acct.liveScope)).filter((r) => r.filename.startsWith('INV-TNEF-1') || r.filename.includes('winmail'));
    expect(all.map((r) => r.status).sort()).toEqual(['attached', 'failed']);

    // a processed message moved back is recognised and only moved
    const movedBefore = fixed.poller.stats.moved;
    await moveAll(DONE, BOX);
    await until(() => fixed.poller.stats.moved > movedBefore, 30_000, 'the processed message to be moved again');
    expect(await h.dovecot.count(DONE)).toBe(1);
    expect((await h.records(acct.liveScope)).filter((r) => r.filename === 'INV-TNEF-1.pdf')).toHaveLength(1);
    expect((await rowOf(id)).attempts).toBe(row.attempts);
    await fixed.stop();
  });

  it('copies of a failed message that were in the mailbox together are handed over once', async () => {
    const { raw, id } = delivered('outlook-tnef-no-pdf.eml');
    const box = 'Copies';
    await h.dovecot.appendRaw(raw, box);
    await h.dovecot.appendRaw(raw, box);
    const poller = h.startPoller({ imapUrl: h.dovecot.url(box), mailProcessedMailbox: 'CopiesDone', mailFailedMailbox: 'CopiesFailed' });
    await until(async () => (await h.dovecot.count('CopiesFailed')) === 2, 30_000, 'both copies in Failed');
    const row = await rowOf(id);
    expect(row).toMatchObject({ outcome: 'failed', reason: 'winmail.dat held no PDF', attempts: 1 });
    const files = await h.db.query('select * from mail_message_files where message_id = $1', [row.id]);
    expect(files).toHaveLength(1);
    await poller.stop();
  });
});
