// IMAP on an S3 store that goes down (issue 46): with s3rver killed, the poller cannot stage the
// PDF of a message, so the message stays in the mailbox (Dovecot) and nothing is recorded; once
// the store is back the next pass takes it: attached once, the message moved once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { invoiceMail, startMailHarness, type MailHarness } from '../mail/mail-harness.ts';

let s3: S3Server;
let h: MailHarness;

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS);
  h = await startMailHarness({
    config: {
      documentStoreTimeoutMs: 2000,
      documentStore: 's3',
      s3Endpoint: s3.endpoint,
      s3Bucket: s3.bucket,
      s3Prefix: `imap-${Date.now()}/`,
      s3Region: 'us-east-1',
      s3ForcePathStyle: true,
    },
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await s3?.destroy();
});

describe('IMAP on a store that is down', () => {
  it('the message stays in the mailbox, nothing recorded; the store back, the next pass attaches it once', async () => {
    const acct = await h.account();
    const inv = await h.invoice(acct.liveKey);
    const box = 'StoreDown';
    await s3.kill();
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('imap-store-faults') }]), box);
    const role = h.startPoller({ imapUrl: h.dovecot.url(box), mailProcessedMailbox: `${box}Done`, mailFailedMailbox: `${box}Failed`, mailPollIntervalMs: 300 });
    try {
      // two passes failed on the store: the message is where it was, no record of it
      await expect.poll(() => role.poller.stats.errors, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      expect(await h.dovecot.count(box)).toBe(1);
      expect(await h.dovecot.count(`${box}Done`)).toBe(0);
      expect(await h.records(acct.liveScope)).toEqual([]);
      // and it was the store that failed them
      expect(h.logs.some((l) => /document store is not available/.test(l))).toBe(true);

      await s3.start();
      await expect.poll(() => h.dovecot.count(`${box}Done`), { timeout: 45_000 }).toBe(1);
      await expect.poll(async () => (await h.records(acct.liveScope)).map((r) => r.status), { timeout: 30_000 }).toEqual(['attached']);
      expect(await h.dovecot.count(box)).toBe(0);
      expect(await h.dovecot.count(`${box}Failed`)).toBe(0);
      const docs = await h.db.query('select id from documents where invoice_id = $1 and deleted_at is null', [inv.id]);
      expect(docs).toHaveLength(1);
    } finally {
      await role.stop();
    }
  });
});
