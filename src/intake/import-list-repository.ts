// The dashboard's reads of the imports: its filtered list and the counts of a period. They read
// through the indexes of migration 0027 (files by time received, trigram indexes of file names and
// invoice numbers), so that an account's whole history is never walked for a page.
import type { Queryable } from '../db/database.ts';
import type { IntakeChannel, IntakeCount, IntakeFilter, IntakeListItem, IntakeStatus } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import { invoiceNumberOfSql } from '../repositories/invoice-repository.ts';
import { scopeWhere } from '../repositories/scoped.ts';
import { source, toRecord, type IntakeRecordRow } from './intake-record-row.ts';

/** A LIKE pattern for `text` anywhere, lower-cased, its own % _ and \\ taken literally (as strpos did). */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class ImportListRepository {
  /** The dashboard's list: filtered, newest first, with the invoice's number. */
  async search(q: Queryable, scope: Scope, f: IntakeFilter): Promise<IntakeListItem[]> {
    const w = scopeWhere(scope);
    const params = [...w.params];
    let where = `${w.sql} and t.deleted_at is null`;
    const add = (cond: (n: string) => string, v: unknown) => {
      params.push(v);
      where += ` and ${cond(`$${params.length}`)}`;
    };
    if (f.status) add((p) => `t.status = ${p}`, f.status);
    if (f.channel) add((p) => `s.channel = ${p}`, f.channel);
    // the period and the text read from their own indexes (received_at; the trigram indexes of
    // file names and invoice numbers, migration 0027): a walk of the account's files from the
    // newest would read its whole history for a rare name or a period with few matches
    // the period also bounds the walk: no file of it has a seq below the smallest of its files'
    if (f.since) {
      add(
        (p) => `s.received_at >= ${p} and t.seq >= (select coalesce(min(r.seq), 9223372036854775807) from intake_staging p join intake_records r on r.id = p.id
        where p.account_id = $1 and p.mode = $2 and p.received_at >= ${p})`,
        f.since,
      );
    }
    if (f.text) {
      add(
        (p) => `t.id in (select n.id from intake_staging n where n.account_id = $1 and n.mode = $2 and lower(n.filename) like ${p} escape '\\'
        union all select r.id from invoices iv join intake_records r on r.invoice_id = iv.id where iv.account_id = $1 and iv.mode = $2 and lower(iv.invoice_number) like ${p} escape '\\')`,
        containing(f.text),
      );
    }
    if (f.after) add((p) => `t.seq < (select seq from intake_records where id = ${p})`, f.after);
    const rows = await q.query<IntakeRecordRow & { invoice_number: string | null }>(
      `select ${source.columns}, i.invoice_number from intake_records t ${source.joins} cross join lateral (select ${invoiceNumberOfSql('t.invoice_id')} as invoice_number) i
       where ${where} order by t.seq desc limit ${Math.max(1, Math.floor(f.limit))}`,
      params,
    );
    return rows.map((r) => ({ ...toRecord(r), invoiceNumber: r.invoice_number ?? null }));
  }

  /** Files received since `since`, counted by channel and status (an unpacked archive is no file: its files count). */
  async counts(q: Queryable, scope: Scope, since: Date): Promise<IntakeCount[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<{ channel: IntakeChannel; status: IntakeStatus; n: number }>(
      // from the period's files (intake_staging_received) to each one's record by its key: a hash
      // join would read every record of the account for a day's files
      `select s.channel, t.status, count(*)::int as n from intake_staging s
       cross join lateral (select t.status from intake_records t where t.id = s.id and t.deleted_at is null and t.status <> 'unpacked') t
       where s.account_id = $1 and s.mode = $2 and s.received_at >= $3 group by 1, 2`,
      [...w.params, since],
    );
    return rows.map((r) => ({ channel: r.channel, status: r.status, count: Number(r.n) }));
  }
}
