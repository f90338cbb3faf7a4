// Which document-store objects (by SHA-256) committed rows still point at: the sweep's question
// (services/document-sweep.ts). Every pointer column is here, with the partial index it is asked by,
// and has the triggers of migration 0030 that note a pointer going away (the sweep's candidates).
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

  /**
   * The oldest candidates (objects whose pointer went away, noted by migration 0030's triggers)
   * released before `before`, in (released_at, sha256) order; `last` is the cursor forgetReleased takes.
   */
  async released(q: Queryable, before: Date, limit: number): Promise<{ sha256s: string[]; last?: Released }> {
    // released_at as text: microseconds, which a Date would lose (and forgetReleased miss the last)
    const rows = await q.query<{ sha256: string; released_at: string }>(
      `select sha256, released_at::text as released_at from document_object_releases where released_at < $1 order by released_at, sha256 limit ${Math.floor(limit)}`,
      [before],
    );
    const at = rows.at(-1);
    return { sha256s: [...new Set(rows.map((r) => r.sha256))], last: at && { at: at.released_at, sha256: at.sha256 } };
  }

  /** Forgets the candidates up to and including `last` (checked: removed, or pointed at still or again). */
  async forgetReleased(q: Queryable, last: Released): Promise<void> {
    await q.query('delete from document_object_releases where (released_at, sha256) <= ($1::timestamptz, $2::text)', [last.at, last.sha256]);
  }

  /** When the sweep's last full listing ended (null: none yet). */
  async lastFullSweep(q: Queryable): Promise<Date | null> {
    const [row] = await q.query<{ full_pass_at: Date | string | null }>('select full_pass_at from document_sweeps');
    return row?.full_pass_at ? new Date(row.full_pass_at) : null;
  }

  async fullSweepDone(q: Queryable, at: Date): Promise<void> {
    await q.query('update document_sweeps set full_pass_at = $1', [at]);
  }
}

/** A candidate's place in the order the sweep reads them. */
export interface Released {
  /** released_at, as PostgreSQL writes it (to the microsecond) */
  at: string;
  sha256: string;
}
