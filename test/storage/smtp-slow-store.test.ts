// The SMTP receiver on a slow store (issue 46): s3rver stopped with SIGSTOP accepts connections but
// answers nothing. Within DOCUMENT_STORE_TIMEOUT_MS the message gets 451 (the sending server keeps
// it and retries) and nothing is committed; answering again (SIGCONT), the same message is 250 and
// its PDF attached once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../../testkit/pdf.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { startMailHarness, type MailHarness } from '../mail/mail-harness.ts';
import { swaks } from '../mail/smtp-clients.ts';

const TIMEOUT_MS = 2000;
let s3: S3Server;
let h: MailHarness;

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS);
  h = await startMailHarness({
    config: {
      roles: ['api', 'worker', 'smtp'],
      documentStoreTimeoutMs: TIMEOUT_MS,
      documentStore: 's3',
      s3Endpoint: s3.endpoint,
      s3Bucket: s3.bucket,
      s3Prefix: `smtp-slow-${Date.now()}/`,
      s3Region: 'us-east-1',
      s3ForcePathStyle: true,
    },
  });
}, 120_000);

afterAll(async () => {
  const pid = s3?.pid();
  if (pid) process.kill(pid, 'SIGCONT');
  await h?.close();
  await s3?.destroy();
});

describe('SMTP on a store that accepts but does not answer', () => {
  it('451 within the time-out and nothing committed; answering again: 250 and attached once', async () => {
    const a = await h.account();
    const inv = await h.invoice(a.liveKey);
    const pdf = await makePdf('smtp-slow-store');
    const messageId = `<store-slow-${Date.now()}@supplier.example>`;
    const send = () =>
      swaks(h.svc.smtpPort!, { to: a.live, files: [{ name: `${inv.invoiceNumber}.pdf`, bytes: pdf }], extra: ['--header', `Message-Id: ${messageId}`] });

    const pid = s3.pid()!;
    process.kill(pid, 'SIGSTOP');
    let refused: Awaited<ReturnType<typeof send>>;
    const started = Date.now();
    try {
      refused = await send();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    console.log(`store paused: SMTP answered after ${Date.now() - started} ms (time-out ${TIMEOUT_MS} ms)`);
    // the store's time-out ended it, not swaks' own (its default is 30 s)
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);
    expect(refused.out).toMatch(/<\*\* +451 4\.3\.0 /);
    expect(refused.out).not.toMatch(/<- +250 2\.6\.0/);
    expect((await h.db.query('select count(*)::int as n from smtp_messages where rcpt_to @> array[$1]::text[]', [a.live.toLowerCase()]))[0].n).toBe(0);

    const sent = await send();
    expect(sent.out).toMatch(/<- +250 2\.6\.0 Ok: queued/);
    const { records } = await h.settledRecords(messageId, 60_000);
    expect(records.map((r) => r.status)).toEqual(['attached']);
  }, 90_000);
});
