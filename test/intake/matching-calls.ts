// The calls the matching and imports tests share, on the intake app of the test file that uses them.
import { expect } from 'vitest';
import { postImport } from '../helpers/imports.ts';
import type { IntakeApp } from './intake-harness.ts';

/** A backoff of five minutes: anything attached sooner than that was woken, not retried. */
export const MATCHING_CONFIG = { intakeBackoffMs: 300_000, intakeBackoffMaxMs: 300_000, intakeMatchWindowMs: 3_600_000 };

export function matchingCalls(app: () => IntakeApp) {
  let seq = 0;
  async function invoice(key: string, invoiceNumber = `F-${Date.now().toString(36)}-${seq++}`) {
    const t = app();
    const c = await t.request('POST', '/v2/customers', { key, body: { customerCode: `C-${Date.now().toString(36)}-${seq++}`, name: 'Intake BV' } });
    const res = await t.request('POST', '/v2/invoices', {
      key,
      body: { customer: c.body.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  const upload = (key: string, filename: string, bytes: Buffer) => postImport(app().request, key, filename, bytes);

  /** Whether each intake file still holds its staged bytes. */
  const stagedBytes = async (...ids: string[]) =>
    Object.fromEntries(
      (await app().db.query<{ id: string; kept: boolean }>('select id, content_sha256 is not null as kept from intake_staging where id = any($1)', [ids])).map(
        (r) => [r.id, r.kept],
      ),
    );
  const contentOf = async (key: string, invoiceId: string) => (await app().request('GET', `/v2/documents/${invoiceId}/content`, { key })).raw;

  const documentsOf = (invoiceId: string) =>
    app().db.query<{ id: string; deleted_at: Date | null; source: string; filename: string }>(
      'select id, deleted_at, source, filename from documents where invoice_id = $1 order by created_at',
      [invoiceId],
    );

  return { invoice, upload, stagedBytes, contentOf, documentsOf };
}
