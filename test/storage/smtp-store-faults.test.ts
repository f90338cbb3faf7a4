// The SMTP receiver on a directory store whose volume turns read-only: the message gets 451 (the
// sending server keeps it and retries), nothing is committed; writable again, the same message is
// 250 and its PDF attached once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../../testkit/pdf.ts';
import { startMailHarness, type MailHarness } from '../mail/mail-harness.ts';
import { swaks } from '../mail/smtp-clients.ts';

const mount = (...args: string[]) => execFileSync('mount', args, { stdio: 'pipe' });
const source = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-volume-'));
const volume = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-mounted-'));
let h: MailHarness;

beforeAll(async () => {
  mount('--bind', source, volume);
  h = await startMailHarness({ config: { roles: ['api', 'worker', 'smtp'], documentStore: 'directory', documentStoreDir: volume } });
}, 120_000);

afterAll(async () => {
  await h?.close();
  try {
    execFileSync('umount', [volume], { stdio: 'pipe' });
  } catch {
    // unmounted already
  }
  fs.rmSync(volume, { recursive: true, force: true });
  fs.rmSync(source, { recursive: true, force: true });
});

describe('SMTP on a document store that cannot take the message', () => {
  it('a read-only volume: 451 and nothing committed; writable again: 250 and attached once', async () => {
    const a = await h.account();
    const inv = await h.invoice(a.liveKey);
    const messageId = `<store-ro-${Date.now()}@supplier.example>`;
    const send = () =>
      swaks(h.svc.smtpPort!, { to: a.live, files: [{ name: `${inv.invoiceNumber}.pdf`, bytes: pdf }], extra: ['--header', `Message-Id: ${messageId}`] });
    const pdf = await makePdf('smtp-store-faults');
    mount('-o', 'remount,bind,ro', volume);
    let refused;
    try {
      refused = await send();
    } finally {
      mount('-o', 'remount,bind,rw', volume);
    }
    expect(refused.out).toMatch(/<\*\* +451 4\.3\.0 /);
    expect((await h.db.query('select count(*)::int as n from smtp_messages where rcpt_to @> array[$1]::text[]', [a.live.toLowerCase()]))[0].n).toBe(0);

    const sent = await send();
    expect(sent.out).toMatch(/<- +250 2\.6\.0 Ok: queued/);
    const { records } = await h.settledRecords(messageId, 60_000);
    expect(records.map((r) => r.status)).toEqual(['attached']);
  }, 90_000);
});
