// The worker marks its record attached in the attach's own statement (document-repository.ts'
// follow-up): the record changes only when the attach ended on a document, once, with one
// history line, and the staged bytes stay exactly when that document shares them.
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

describe('attach with the record marked in the same statement', () => {
  it('marks the record attached once, with one line, and keeps the staged bytes the document shares', async () => {
    const { key, invoices } = await t.accountWith(['FU-1']);
    const pdf = await makePdf('follow-up');
    // named for no invoice: it waits, untouched by its job
    const waiting = await t.importFile(key, 'NOTHING-1.pdf', pdf);
    expect(waiting.status).toBe('waiting');
    const { intakeRepos, documents, db } = t.svc.container;
    const accountId = (await db.query<{ account_id: string }>('select account_id from intake_records where id = $1', [waiting.id]))[0].account_id;
    const attach = () => documents.attach({ accountId, mode: 'live' }, {
      invoiceId: invoices['FU-1'], filename: 'FU-1.pdf', bytes: pdf, source: 'http', matchedBy: 'manual', checked: true,
      staged: { intakeId: waiting.id, sha256: waiting.sha256 },
      followUp: { statement: intakeRepos.intake.attachedFollowUp(waiting.id, 'manual', texts('FU-1')), event: 'import.attached', subject: () => () => undefined },
    });
    const first = await attach();
    expect(first).toMatchObject({ changed: true, followed: 1 });
    const record = await t.waitFor(key, waiting.id, (r) => r.status === 'attached', 1000);
    expect(record).toMatchObject({ status: 'attached', invoice: invoices['FU-1'], document: 'document' in first ? first.document.id : '', reason: null, matchedBy: 'manual' });
    // the same bytes again: the document stays, the record (attached already) is not changed again
    const second = await attach();
    expect(second).toMatchObject({ changed: false, followed: 0 });
    const lines = await db.query<{ status: string; reason: string }>('select status, reason from intake_history where intake_id = $1 order by at', [waiting.id]);
    expect(lines.map((l) => l.status)).toEqual(['received', 'waiting', 'attached']);
    expect(lines[2].reason).toBe(intakeReason('matched', { by: 'manual', number: 'FU-1' }).text);
    const kept = await db.query<{ kept: boolean }>('select content is not null as kept from intake_staging where id = $1', [waiting.id]);
    expect(kept[0].kept).toBe(true);
  });

  it('leaves the record alone when the attach ends on no document (no such invoice)', async () => {
    const { key } = await t.accountWith(['FU-2']);
    const pdf = await makePdf('no invoice');
    const waiting = await t.importFile(key, 'NOTHING-2.pdf', pdf);
    const { intakeRepos, documents, db } = t.svc.container;
    const accountId = (await db.query<{ account_id: string }>('select account_id from intake_records where id = $1', [waiting.id]))[0].account_id;
    await expect(documents.attach({ accountId, mode: 'live' }, {
      invoiceId: 'inv_doesnotexist', filename: 'x.pdf', bytes: pdf, source: 'http', matchedBy: 'manual', checked: true,
      staged: { intakeId: waiting.id, sha256: waiting.sha256 },
      followUp: { statement: intakeRepos.intake.attachedFollowUp(waiting.id, 'manual', texts('X')), event: 'import.attached', subject: () => () => undefined },
    })).rejects.toMatchObject({ kind: 'not_found' });
    expect((await t.waitFor(key, waiting.id, undefined, 1)).status).toBe('waiting');
  });
});
