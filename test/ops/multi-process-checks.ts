// What the multi-process test checks after a batch (every file attached once, with its bytes;
// the mailbox drained), and the gate that lets a batch arrive in shares.
import type pg from 'pg';
import { expect } from 'vitest';
import type { Dovecot } from '../../testkit/dovecot.ts';
import { pollFor } from '../../testkit/wait.ts';

export interface File {
  number: string;
  invoiceId: string;
  bytes: Buffer;
  sha256: string;
  channel: 'mail' | 'http' | 'ftp';
}

/** Lets senders go up to a share of their files, so that a batch is still arriving when a process stops. */
export class Gate {
  private share = 1;
  private readonly totals: number[] = [];
  /** feeds waiting for the gate to open further */
  private readonly waiting: (() => void)[] = [];
  /** files let through so far, by every feed of this gate */
  passed = 0;
  open(share: number) {
    this.share = share;
    for (const wake of this.waiting.splice(0)) wake();
  }
  /** how many files the current share lets through, over every feed */
  allowed(): number {
    return this.totals.reduce((sum, total) => sum + Math.ceil(total * this.share), 0);
  }
  /** Hands out `files` in order, each once the gate lets it through; undefined when none are left. */
  feed<T>(files: T[]): () => Promise<T | undefined> {
    this.totals.push(files.length);
    let next = 0;
    return async () => {
      if (next >= files.length) return undefined;
      const i = next++;
      while (i >= Math.ceil(files.length * this.share)) await new Promise<void>((wake) => this.waiting.push(wake));
      this.passed++;
      return files[i];
    };
  }
}

/** Waits until every file of the batch has an attached record and nothing is pending. */
export async function waitAttached(sql: pg.Pool, files: File[], ms = 240_000): Promise<void> {
  const names = files.map((f) => `${f.number}.pdf`);
  const state = async () =>
    (
      await sql.query<{ attached: number; pending: number }>(
        `select count(distinct s.filename)::int as attached,
              (select count(*)::int from intake_records where status in ('received', 'waiting')) as pending
         from intake_records t join intake_staging s on s.id = t.id
        where t.status = 'attached' and s.filename = any($1)`,
        [names],
      )
    ).rows[0];
  const last = await pollFor(state, (r) => r.attached === files.length && r.pending === 0, { ms, everyMs: 250 });
  if (last.attached !== files.length || last.pending !== 0)
    throw new Error(`after ${ms} ms: ${last.attached} of ${files.length} attached, ${last.pending} pending`);
}

/** Nothing lost, nothing attached twice: each invoice got exactly one document, with its file's bytes. */
export async function verify(sql: pg.Pool, files: File[]): Promise<{ records: number; duplicates: number }> {
  const ids = files.map((f) => f.invoiceId);
  const docs = await sql.query<{ invoice_id: string; n: number; sha256: string }>(
    `select invoice_id, count(*)::int as n, min(sha256) as sha256 from documents where invoice_id = any($1) group by invoice_id`,
    [ids],
  );
  const byInvoice = new Map(docs.rows.map((r) => [r.invoice_id, r]));
  const problems: string[] = [];
  for (const f of files) {
    const d = byInvoice.get(f.invoiceId);
    if (!d) problems.push(`${f.number} (${f.channel}): no document`);
    else if (d.n !== 1) problems.push(`${f.number} (${f.channel}): ${d.n} documents`);
    else if (d.sha256 !== f.sha256) problems.push(`${f.number} (${f.channel}): other bytes`);
  }
  expect(problems).toEqual([]);
  const invoices = await sql.query(`select count(*)::int as n from invoices where id = any($1) and document_id is not null`, [ids]);
  expect(invoices.rows[0].n).toBe(files.length);
  const records = await sql.query<{ status: string; n: number }>(
    `select t.status, count(*)::int as n from intake_records t join intake_staging s on s.id = t.id where s.filename = any($1) group by t.status`,
    [files.map((f) => `${f.number}.pdf`)],
  );
  const counts = Object.fromEntries(records.rows.map((r) => [r.status, r.n]));
  expect(Object.keys(counts)).toEqual(['attached']);
  return { records: counts.attached, duplicates: counts.attached - files.length };
}

export async function mailboxSettled(dovecot: Dovecot, mailCount: number): Promise<void> {
  const counts = async () => ({ inbox: await dovecot.count('INBOX'), processed: await dovecot.count('Processed') });
  const last = await pollFor(counts, (c) => c.inbox === 0 && c.processed >= mailCount, { ms: 60_000, everyMs: 250 });
  if (last.inbox !== 0 || last.processed < mailCount) throw new Error(`mailbox not drained: INBOX ${last.inbox}, Processed ${last.processed}`);
}
