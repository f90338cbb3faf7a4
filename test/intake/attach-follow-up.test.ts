// The worker marks its record attached by intake's own statement in the attach's transaction
// (DocumentService.attach's follow-up, intake/document-link-repository.ts): the record changes only
// when the attach ended on a document, once, with one history line, and the staged bytes stay
// exactly when that document shares them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;

// a long window and backoff: a file that names no invoice waits, and its job stays out of the way
beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 300_000, intakeBackoffMaxMs: 300_000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

const texts = (number: string) => ({
  note: { changed: null, unchanged: intakeReason('same_file') },
  history: { changed: intakeReason('matched', { by: 'manual', number }), unchanged: intakeReason('matched', { by: 'manual', number }) },
  replaced: intakeReason('document_replaced', { filename: `${number}.pdf`, number, by: 'manual' }),
});

describe('attach with the record marked in the same transaction', () => {
  it('marks the record attached once, with one line, and keeps the staged bytes the document shares', async () => {
    const { key, invoices } = await t.accountWith(['FU-1']);
    const pdf = await makePdf('follow-up');
    // named for no invoice: it waits, untouched by its job
    const waiting = await t.importFile(key, 'NOTHING-1.pdf', pdf);
    expect(waiting.status).toBe('waiting');
    const { intakeRepos, documents, db } = t.svc.container;
    const accountId = (await db.query<{ account_id: string }>('select account_id from intake_records where id = $1', [waiting.id]))[0].account_id;
    const attach = () =>
      documents.attach(
        { accountId, mode: 'live' },
        {
          invoiceId: invoices['FU-1'],
          filename: 'FU-1.pdf',
          bytes: pdf,
          source: 'http',
          matchedBy: 'manual',
          checked: true,
          staged: { intakeId: waiting.id, sha256: waiting.sha256 },
          followUp: {
            part: intakeRepos.documentLinks.markAttached({ accountId, mode: 'live' }, waiting.id, 'manual', texts('FU-1')),
            event: 'import.attached',
            subject: () => () => undefined,
          },
        },
      );
    const first = await attach();
    expect(first).toMatchObject({ changed: true, followed: 1 });
    const record = await t.waitFor(key, waiting.id, (r) => r.status === 'attached', 1000);
    expect(record).toMatchObject({
      status: 'attached',
      invoice: invoices['FU-1'],
      document: 'document' in first ? first.document.id : '',
      reason: null,
      matchedBy: 'manual',
    });
    // the same bytes again: the document stays, the record (attached already) is not changed again
    const second = await attach();
    expect(second).toMatchObject({ changed: false, followed: 0 });
    const lines = await db.query<{ status: string; reason: string }>('select status, reason from intake_history where intake_id = $1 order by at', [
      waiting.id,
    ]);
    expect(lines.map((l) => l.status)).toEqual(['received', 'waiting', 'attached']);
    expect(lines[2].reason).toBe(intakeReason('matched', { by: 'manual', number: 'FU-1' }).text);
    const kept = await db.query<{ kept: boolean }>('select content_sha256 is not null as kept from intake_staging where id = $1', [waiting.id]);
    expect(kept[0].kept).toBe(true);
  });

  it('leaves the record alone when the attach ends on no document (no such invoice)', async () => {
    const { key } = await t.accountWith(['FU-2']);
    const pdf = await makePdf('no invoice');
    const waiting = await t.importFile(key, 'NOTHING-2.pdf', pdf);
    const { intakeRepos, documents, db } = t.svc.container;
    const accountId = (await db.query<{ account_id: string }>('select account_id from intake_records where id = $1', [waiting.id]))[0].account_id;
    await expect(
      documents.attach(
        { accountId, mode: 'live' },
        {
          invoiceId: 'inv_doesnotexist',
          filename: 'x.pdf',
          bytes: pdf,
          source: 'http',
          matchedBy: 'manual',
          checked: true,
          staged: { intakeId: waiting.id, sha256: waiting.sha256 },
          followUp: {
            part: intakeRepos.documentLinks.markAttached({ accountId, mode: 'live' }, waiting.id, 'manual', texts('X')),
            event: 'import.attached',
            subject: () => () => undefined,
          },
        },
      ),
    ).rejects.toMatchObject({ kind: 'not_found' });
    expect((await t.waitFor(key, waiting.id, undefined, 1)).status).toBe('waiting');
  });

  it('a manual attach (POST /v2/imports/{id}/attach) replacing an imported document: both records say so in its one transaction', async () => {
    const { key, invoices } = await t.accountWith(['FU-3']);
    const first = await t.importFile(key, 'FU-3.pdf', await makePdf('first'));
    expect(first.status).toBe('attached');
    const waiting = await t.importFile(key, 'NOTHING-3.pdf', await makePdf('second'));
    expect(waiting.status).toBe('waiting');
    const res = await t.request('POST', `/v2/imports/${waiting.id}/attach`, { key, body: { Invoice: 'FU-3' } });
    expect(res.status).toBe(200);
    const { db } = t.svc.container;
    const rows = await db.query<{ id: string; status: string; reason: string; document_id: string; kept: boolean }>(
      'select r.id, r.status, r.reason, r.document_id, s.content_sha256 is not null as kept from intake_records r join intake_staging s on s.id = r.id where r.id = any($1)',
      [[first.id, waiting.id]],
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId[waiting.id]).toMatchObject({ status: 'attached', reason: intakeReason('assigned', { number: 'FU-3' }).text, kept: true });
    // the first file's document is replaced: its record says by which, its staged bytes are freed
    expect(byId[first.id]).toMatchObject({
      status: 'attached',
      reason: intakeReason('document_replaced', { filename: 'NOTHING-3.pdf', number: 'FU-3', by: 'manual' }).text,
      kept: false,
    });
    const current = await t.request('GET', `/v2/documents/${invoices['FU-3']}`, { key });
    expect(current.body.id).toBe(byId[waiting.id].document_id);
  });
});
