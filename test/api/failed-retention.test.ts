// intake.retention (hourly): the bytes of a file that failed more than INTAKE_FAILED_RETENTION_DAYS
// ago are dropped, once; every other file keeps its bytes. The due files are read by the partial
// index intake_records_failed_kept (migration 0029), so a run reads them and nothing else.
// No workers run here: records stay as the test sets them (markFailed, ages set by hand).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import { DROP_DUE_SQL } from '../../src/intake/failed-retention.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let a: TestAccount;
let pdf: Buffer;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  pdf = await makePdf('retention');
});
afterAll(() => t?.close());

const scope = () => ({ accountId: a.id, mode: 'live' as const });
const DAYS = 14; // the configured default, what the periodic task passes

async function hand(filename: string, bytes = pdf): Promise<string> {
  const res = await t.request('POST', '/v2/imports', { key: a.liveKey, body: { filename, content: bytes.toString('base64') } });
  expect(res.status).toBe(202);
  return res.body.id;
}
async function fail(id: string): Promise<void> {
  expect(await t.c.intakeRepos.intake.markFailed(t.db, scope(), id, intakeReason('no_invoice', { awaits: { name: 'x', einvoiceNumbers: [] } }))).toBe(true);
}
const age = (id: string, days: number) => t.db.query(`update intake_records set updated_at = now() - make_interval(days => $2::int) where id = $1`, [id, days]);
async function state(id: string) {
  const [r] = await t.db.query<{ status: string; kept: boolean; marked: boolean }>(
    `select r.status, s.content_sha256 is not null as kept, r.bytes_dropped_at is not null as marked from intake_records r join intake_staging s on s.id = r.id where r.id = $1`,
    [id],
  );
  return r;
}
const run = () => t.c.intake.dropFailedContent(DAYS);

describe('intake.retention', () => {
  it('drops the bytes of a failed file past the retention and marks it; every other file keeps its bytes; a second run drops nothing', async () => {
    const old = await hand('old.pdf');
    await fail(old);
    await age(old, DAYS + 1);
    const young = await hand('young.pdf');
    await fail(young);
    await age(young, DAYS - 1);
    const received = await hand('received.pdf');
    await age(received, DAYS + 30);
    const inv = await createInvoice(t, a.liveKey);
    const attached = await hand('attached.pdf');
    expect((await t.request('POST', `/v2/imports/${attached}/attach`, { key: a.liveKey, body: { Invoice: inv.invoiceNumber } })).status).toBe(200);
    await age(attached, DAYS + 30);

    expect(await run()).toBe(1);
    expect(await state(old)).toEqual({ status: 'failed', kept: false, marked: true });
    expect(await state(young)).toEqual({ status: 'failed', kept: true, marked: false });
    expect(await state(received)).toEqual({ status: 'received', kept: true, marked: false });
    expect(await state(attached)).toEqual({ status: 'attached', kept: true, marked: false });
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key: a.liveKey })).body.document).toBe('attached.pdf');

    expect(await run()).toBe(0);
    expect(await state(young)).toEqual({ status: 'failed', kept: true, marked: false });
  });

  it('a file whose bytes were dropped cannot be retried, so it never leaves failed with the mark and comes back with bytes', async () => {
    const id = await hand('dropped.pdf');
    await fail(id);
    await age(id, DAYS + 2);
    expect(await run()).toBe(1);
    const retry = await t.request('POST', `/v2/imports/${id}/retry`, { key: a.liveKey });
    expect(retry.status).toBe(409);
    expect(retry.body.detail).toContain('no longer kept');
    expect(await state(id)).toEqual({ status: 'failed', kept: false, marked: true });
  });

  it('a file retried and failed again keeps its bytes for a retention from its last failure', async () => {
    const id = await hand('again.pdf');
    await fail(id);
    await age(id, DAYS - 1);
    const retry = await t.request('POST', `/v2/imports/${id}/retry`, { key: a.liveKey });
    expect(retry.body).toMatchObject({ id, status: 'received' });
    await fail(id); // fails again today: a new retention starts
    expect(await run()).toBe(0);
    expect(await state(id)).toEqual({ status: 'failed', kept: true, marked: false });
    await age(id, DAYS + 1);
    expect(await run()).toBe(1);
    expect(await state(id)).toEqual({ status: 'failed', kept: false, marked: true });
  });

  it('a file refused on arrival (no bytes) is marked once and counted as nothing dropped', async () => {
    const id = await hand('not-a-pdf.pdf', Buffer.from('hello'));
    expect(await state(id)).toEqual({ status: 'failed', kept: false, marked: false });
    await age(id, DAYS + 1);
    expect(await run()).toBe(0);
    expect(await state(id)).toEqual({ status: 'failed', kept: false, marked: true });
  });

  it('a backlog larger than a batch is dropped in several statements, all of it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await hand(`backlog-${i}.pdf`));
    for (const id of ids) await fail(id), await age(id, DAYS + 10);
    expect(await t.c.intakeRepos.intake.dropFailedContent(t.db, DAYS, 2)).toBe(5);
    for (const id of ids) expect(await state(id)).toEqual({ status: 'failed', kept: false, marked: true });
    expect(await t.c.intakeRepos.intake.dropFailedContent(t.db, DAYS, 2)).toBe(0);
  });

  it('the due records are read by the partial index intake_records_failed_kept', async () => {
    // a few rows: the planner would read the table whole; with sequential scans priced out the plan
    // shows that the index answers the selection (its predicate covers it), as at 10^6 rows
    const plan = await t.db.transaction(async (tx) => {
      await tx.query('set local enable_seqscan = off');
      return tx.query<{ 'QUERY PLAN': string }>(`explain ${DROP_DUE_SQL}`, [DAYS, 10_000]);
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('intake_records_failed_kept');
    expect(text).not.toMatch(/Seq Scan on intake_(records|staging)/);
  });
});
