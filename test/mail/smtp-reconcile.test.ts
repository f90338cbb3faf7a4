// A message the SMTP receiver committed whose job is gone (Redis lost it) is still processed:
// the periodic `mail.smtp-reconcile` task queues it again (issue 43). The receiver runs without a
// worker, its job is removed, then a worker process of the same installation starts.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { startMailHarness, until, type MailHarness } from './mail-harness.ts';
import { swaks } from './smtp-clients.ts';

let h: MailHarness;
let worker: RunningService | undefined;

beforeAll(async () => {
  h = await startMailHarness({ config: { roles: ['api', 'smtp'], reconcileIntervalMs: 1000, smtpReconcileAfterMs: 3000 } });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

describe('SMTP reconcile', () => {
  it('a committed message whose job was lost is queued again by the reconciler and imported once', async () => {
    const a = await h.account();
    const inv = await h.invoice(a.liveKey);
    const messageId = `<lost-job-${Date.now()}@supplier.example>`;
    const sent = await swaks(h.svc.smtpPort!, {
      to: a.live,
      files: [{ name: `${inv.invoiceNumber}.pdf`, bytes: await makePdf('lost') }],
      extra: ['--header', `Message-Id: ${messageId}`],
    });
    expect(sent.out).toMatch(/<- {2}250 2\.6\.0 Ok: queued as (msg_\w+)/);
    const id = /queued as (msg_\w+)/.exec(sent.out)![1];
    // Redis loses the job (no worker ran it yet)
    const queue = h.svc.container.jobs.bullQueue('mail');
    await until(async () => Boolean(await queue.getJob(id)), 10_000, 'the job to be queued');
    await queue.obliterate({ force: true });
    expect(await queue.getJob(id)).toBeUndefined();
    expect((await h.db.query<any>('select processed_at from smtp_messages where id = $1', [id]))[0].processed_at).toBeNull();

    // a worker of the same installation: its reconciler finds the message SMTP_RECONCILE_AFTER_MS (3 s here) after its commit
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    worker = await startService({ ...h.config, roles: ['worker'] }, createLogger('info', sink), { db: { ...h.db, close: async () => {} } });
    const { records } = await h.settledRecords(messageId, 90_000);
    expect(records.map((r) => [r.status, r.invoiceId])).toEqual([['attached', inv.id]]);
    // the message is marked processed after its files are staged: their records may settle first
    await expect
      .poll(async () => (await h.db.query<any>('select processed_at from smtp_messages where id = $1', [id]))[0].processed_at, { timeout: 10_000 })
      .toBeInstanceOf(Date);
  }, 150_000);
});
