// Which document-store objects (by SHA-256) committed rows still point at: the sweep's question
// (services/document-sweep.ts). Every pointer column is here, with the partial index it is asked by.
import type { Queryable } from '../db/database.ts';

/** `x.sha` is named by no row: staged files, documents and their XML originals, raw SMTP messages. */
const UNREFERENCED = `not exists (select 1 from intake_staging s where s.content_sha256 = x.sha)
  and not exists (select 1 from documents d where d.content_sha256 = x.sha)
  and not exists (select 1 from documents d where d.original_sha256 = x.sha)
  and not exists (select 1 from smtp_messages m where m.raw_sha256 = x.sha)`;

export class ObjectReferenceRepository {
  /** Those of `sha256s` that no committed row points at. */
  async unreferenced(q: Queryable, sha256s: string[]): Promise<string[]> {
    const rows = await q.query<{ sha: string }>(`select x.sha from unnest($1::text[]) x(sha) where ${UNREFERENCED}`, [sha256s]);
    return rows.map((r) => r.sha);
  }

  /** How many distinct objects rows point at (move-documents' progress). */
  async countReferenced(q: Queryable): Promise<number> {
    const [row] = await q.query<{ n: number }>(
      `select count(*)::int as n from (
         select content_sha256 as sha from intake_staging where content_sha256 is not null
         union select content_sha256 from documents where content_sha256 is not null
         union select original_sha256 from documents where original_sha256 is not null
         union select raw_sha256 from smtp_messages where raw_sha256 is not null
       ) x`,
    );
    return Number(row.n);
  }

  /** Every pointer, in SHA-256 order after `after` (move-documents, checks). */
  async referenced(q: Queryable, after: string, limit: number): Promise<string[]> {
    const rows = await q.query<{ sha: string }>(
      `select sha from (
         select content_sha256 as sha from intake_staging where content_sha256 > $1
         union select content_sha256 from documents where content_sha256 > $1
         union select original_sha256 from documents where original_sha256 > $1
         union select raw_sha256 from smtp_messages where raw_sha256 > $1
       ) x order by sha limit ${Math.floor(limit)}`,
      [after],
    );
    return rows.map((r) => r.sha);
  }
}
