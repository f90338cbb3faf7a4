import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';
import { dropQueueKeys } from './intake-harness.ts';
import { intakeReason } from '../../src/domain/intake-reasons.ts';

let t: TestApp;
let acct: TestAccount;

beforeAll(async () => {
  t = await startTestApp();
  acct = await t.createAccount();
});
afterAll(async () => {
  await t?.close();
  if (t) await dropQueueKeys(t.config);
});

describe('IntakeReceiver.receive', () => {
  it('stages the file, records it as received and enqueues a job that carries references only', async () => {
    const scope = { accountId: acct.id, mode: 'live' as const };
    const bytes = await makePdf('receive');
    const record = await t.c.intake.receive({ scope, channel: 'ftp', sender: 'ftpuser@127.0.0.1', filename: 'F-1.pdf', bytes, traceId: 'tr-1' });
    expect(record).toMatchObject({ channel: 'ftp', sender: 'ftpuser@127.0.0.1', filename: 'F-1.pdf', size: bytes.length, status: 'received', reason: null });
    expect(record.id).toMatch(/^imp_/);
    // the row points at the bytes in the document store, by their SHA-256
    const staged = await t.db.query<{ content_sha256: string }>('select content_sha256 from intake_staging where id = $1', [record.id]);
    expect((await t.c.store.get(staged[0].content_sha256)).equals(bytes)).toBe(true);
    const job = await t.c.jobs.bullQueue('intake').getJob(record.id);
    expect(job?.data).toEqual({ intakeId: record.id, accountId: acct.id, mode: 'live', traceId: 'tr-1' });
    expect((await t.c.intake.recent(scope, 5))[0].id).toBe(record.id);
  });

  it('records a file refused at once (not a PDF, bad name) as failed without a job', async () => {
    const scope = { accountId: acct.id, mode: 'test' as const };
    const notPdf = await t.c.intake.receive({ scope, channel: 'mail', sender: 'a@b.nl', filename: 'F-2.pdf', bytes: Buffer.from('hello') });
    expect(notPdf).toMatchObject({ status: 'failed', reason: 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' });
    expect(await t.c.jobs.bullQueue('intake').getJob(notPdf.id)).toBeUndefined();
    const badName = await t.c.intake.receive({ scope, channel: 'ftp', sender: 'x', filename: '../F-2.pdf', bytes: await makePdf() });
    expect(badName.status).toBe('failed');
    expect(badName.reason).toMatch(/path parts/);
    const none = await t.c.intake.recordFailure({ scope, channel: 'mail', sender: 'a@b.nl', filename: '(no attachment)' }, intakeReason('no_pdf_attached'));
    expect(none).toMatchObject({ status: 'failed', reason: 'No PDF attached', size: 0 });
  });
});
