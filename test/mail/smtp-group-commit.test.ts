// The SMTP receiver's group commit (issue 43): the rows of messages whose DATA ends at once are
// committed by one statement, each 250 only after its own row is. Python's smtplib sends eight
// messages over eight connections, their final dots released together, one of them twice (the
// same Message-ID and bytes, as a sender that retries a 250 it never read): every session gets
// 250, the copy the first one's id, one row each, and each PDF is attached once, processed in the
// receiver's own process (no mail job) even while the copy's job for the first one runs beside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../../testkit/pdf.ts';
import { startMailHarness, type MailHarness } from './mail-harness.ts';
import { python } from './smtp-clients.ts';

let h: MailHarness;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-smtp-group-'));

beforeAll(async () => {
  h = await startMailHarness({ config: { roles: ['api', 'worker', 'smtp'] } });
}, 120_000);

afterAll(async () => {
  await h?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Each argument a message file; all sessions reach DATA, then send together. Prints "<i> <code> <text>" a line. */
const SEND_TOGETHER = `
import smtplib, sys, threading
port, sender, rcpt, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
ready = threading.Barrier(len(paths))
out = [None] * len(paths)
def send(i, p):
    msg = open(p, 'rb').read()
    with smtplib.SMTP('127.0.0.1', port, timeout=60) as s:
        s.ehlo('client.supplier.example')
        s.mail(sender)
        s.rcpt(rcpt)
        ready.wait()
        code, text = s.data(msg)
        out[i] = '%d %d %s' % (i, code, text.decode())
threads = [threading.Thread(target=send, args=(i, p)) for i, p in enumerate(paths)]
for t in threads: t.start()
for t in threads: t.join()
print('\\n'.join(out))
`;

/** Seven messages and a copy of the first, ended at once; each session's queued-as id, and the invoices their PDFs name. */
async function sendGroup(tag: string) {
  const a = await h.account();
  const invoices = await Promise.all(Array.from({ length: 7 }, () => h.invoice(a.liveKey)));
  const stamp = `${tag}-${Date.now()}`;
  const files = await Promise.all(
    invoices.map(async (inv, i) => {
      const raw = await new MailComposer({
        from: 'accounts@supplier.example',
        to: a.live,
        subject: 'Invoice',
        text: 'Attached.',
        messageId: `<group-${stamp}-${i}@supplier.example>`,
        attachments: [{ filename: `${inv.invoiceNumber}.pdf`, content: await makePdf(`group ${i}`) }],
      })
        .compile()
        .build();
      const p = path.join(tmp, `${stamp}-${i}.eml`);
      fs.writeFileSync(p, raw);
      return p;
    }),
  );
  const sent = await python(
    SEND_TOGETHER,
    ['0', 'accounts@supplier.example', a.live, ...files, files[0]].map((x, i) => (i === 0 ? String(h.svc.smtpPort) : x)),
  );
  const lines = sent.out
    .trim()
    .split('\n')
    .map((l) => /^(\d+) (\d+) .*queued as (msg_\w+)/.exec(l));
  expect(lines.every(Boolean), sent.out).toBe(true);
  const ids = lines.map((m) => m![3]);
  // the copy (the last session) is answered with its first's id; the others each their own
  expect(ids[7]).toBe(ids[0]);
  expect(new Set(ids.slice(0, 7)).size).toBe(7);
  return { a, invoices, stamp, ids };
}

describe('SMTP group commit', () => {
  it('eight messages ended at once, one of them twice: 250 each, one row each, the copy answered with the first id, each PDF attached once', async () => {
    const { a, invoices, stamp, ids } = await sendGroup('first');
    const rows = await h.db.query<{ id: string }>('select id from smtp_messages where rcpt_to @> array[$1]::text[] order by id', [a.live.toLowerCase()]);
    expect(rows.map((r) => r.id)).toEqual([...ids.slice(0, 7)].sort());
    // each raw message's object committed with its row (the database store writes it in the group's statement)
    const objects = await h.db.query<{ n: number }>(
      'select count(*)::int as n from smtp_messages m join document_objects o on o.sha256 = m.raw_sha256 where m.id = any($1::text[])',
      [ids.slice(0, 7)],
    );
    expect(objects[0].n).toBe(7);
    for (const [i, inv] of invoices.entries()) {
      const { records } = await h.settledRecords(`<group-${stamp}-${i}@supplier.example>`, 60_000);
      expect(records.map((r) => [r.status, r.invoiceId])).toEqual([['attached', inv.id]]);
    }
    expect((await h.records(a.liveScope)).filter((r) => r.channel === 'mail')).toHaveLength(7);
    await expect
      .poll(
        async () =>
          (
            await h.db.query<{ n: number }>('select count(*)::int as n from smtp_messages where rcpt_to @> array[$1]::text[] and processed_at is not null', [
              a.live.toLowerCase(),
            ])
          )[0].n,
        { timeout: 10_000 },
      )
      .toBe(7);
    // run in the receiver's own process: no mail job was queued for them (the copy's answer
    // queues one for its first, which finds it processed or being processed)
    const queue = h.svc.container.jobs.bullQueue('mail');
    for (const id of ids.slice(1, 7)) expect(await queue.getJob(id)).toBeUndefined();
  }, 120_000);
  it('with the pipeline built (the test before): each message is claimed by the statement that commits it and marked processed by the one that stages it, and still attached once', async () => {
    const { a, invoices, stamp, ids } = await sendGroup('built');
    for (const [i, inv] of invoices.entries()) {
      const { records } = await h.settledRecords(`<group-${stamp}-${i}@supplier.example>`, 60_000);
      expect(records.map((r) => [r.status, r.invoiceId])).toEqual([['attached', inv.id]]);
    }
    expect((await h.records(a.liveScope)).filter((r) => r.channel === 'mail')).toHaveLength(7);
    // one claim a message (its key: the dedupe key and the recipient), made in the transaction
    // of the message's row (now() is the same in both), and the message marked processed in the
    // transaction that staged it
    const claims = async () =>
      (
        await h.db.query<{ n: number; same: number; moved: number; processed: number }>(
          `select s.id, count(m.id)::int as n, count(m.id) filter (where m.claimed_at = s.received_at)::int as same,
                  count(m.id) filter (where m.state = 'moved')::int as moved, count(m.id) filter (where m.staged_at = s.processed_at)::int as processed
             from smtp_messages s
             left join mail_messages m on m.transport = 'smtp' and m.message_key = encode(sha256(convert_to(s.dedupe_key, 'UTF8') || '\\x00'::bytea || convert_to($2, 'UTF8')), 'hex')
            where s.id = any($1::text[]) group by s.id order by s.id`,
          [ids.slice(0, 7), a.live.toLowerCase()],
        )
      ).map((c) => [c.n, c.same, c.moved, c.processed]);
    await expect.poll(claims, { timeout: 10_000 }).toEqual(Array.from({ length: 7 }, () => [1, 1, 1, 1]));
  }, 120_000);
});
