import { SEPARATORS } from '../domain/match-names.ts';
import type { Queryable } from '../db/database.ts';
import type { Invoice, InvoiceStatus } from '../domain/models.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import { findWithTombstone, pageScoped, updateScoped, scopeWhere, scopeWhereId, type Found, type ScopedSource } from './scoped.ts';

const source: ScopedSource = {
  table: 'invoices',
  columns: `t.id, t.status, t.invoice_number, t.invoice_date::text as invoice_date, t.invoice_duedate::text as invoice_duedate,
    t.total_cents, t.balance_cents, t.customer_id, c.customer_code, c.name as customer_name, d.filename as document`,
  joins: 'join customers c on c.id = t.customer_id left join documents d on d.id = t.document_id',
  tombstones: true,
};

/** A row of `source`: the invoice with its customer's code and name and its document's file name. */
interface InvoiceRow {
  id: string;
  status: InvoiceStatus;
  invoice_number: string;
  /** YYYY-MM-DD (selected as text) */
  invoice_date: string;
  invoice_duedate: string;
  total_cents: number;
  balance_cents: number;
  customer_id: string;
  customer_code: string;
  customer_name: string;
  document: string | null;
}

const toInvoice = (r: InvoiceRow): Invoice => ({
  id: r.id,
  status: r.status,
  invoiceNumber: r.invoice_number,
  invoiceDate: r.invoice_date,
  invoiceDuedate: r.invoice_duedate,
  totalCents: r.total_cents,
  balanceCents: r.balance_cents,
  document: r.document ?? null,
  customer: { id: r.customer_id, number: r.customer_code, name: r.customer_name },
});

export interface NewInvoice {
  id: string;
  customerId: string;
  invoiceNumber: string;
  invoiceDate: string;
  invoiceDuedate: string;
  totalCents: number;
  balanceCents: number;
  status: InvoiceStatus;
}

/** An invoice whose number one of the candidates names. */
export interface InvoiceNumberMatch {
  id: string;
  invoiceNumber: string;
  totalCents: number;
}

export type InvoicePatch = Partial<Pick<NewInvoice, 'invoiceDate' | 'invoiceDuedate' | 'totalCents' | 'balanceCents' | 'status'>>;

const PATCH_COLUMNS: Record<keyof InvoicePatch, string> = {
  invoiceDate: 'invoice_date',
  invoiceDuedate: 'invoice_duedate',
  totalCents: 'total_cents',
  balanceCents: 'balance_cents',
  status: 'status',
};

/**
 * The core's published read of an invoice by number, for a statement of another part: intake's
 * worker asks it with the record it loads, in the same round trip. A scalar subquery, the id of the
 * live invoice of `account` and `mode` (SQL expressions of the outer statement) numbered `number`:
 * the spec's rule in one probe of the lower() index, an exact match first (numbers are unique per
 * scope), otherwise a case-insensitive one only when it is the only one. Its SQL stays here, with
 * findByNumber's, so that only the core's repositories name the invoices table.
 */
export const invoiceByNumberSql = (account: string, mode: string, number: string): string =>
  `(select case when count(*) filter (where i.invoice_number = ${number}) > 0 then min(i.id) filter (where i.invoice_number = ${number})
    when count(*) = 1 then min(i.id) end
  from invoices i where i.account_id = ${account} and i.mode = ${mode} and i.deleted_at is null and lower(i.invoice_number) = lower(${number}))`;

/** The number of the invoice whose id is the SQL expression `id` (null when none), for intake's file lists. */
export const invoiceNumberOfSql = (id: string): string => `(select iv.invoice_number from invoices iv where iv.id = ${id})`;

export class InvoiceRepository {
  find(q: Queryable, scope: Scope, id: string, lock = false): Promise<Found<Invoice>> {
    return findWithTombstone(q, source, scope, id, toInvoice, lock);
  }

  /** Live invoice by exact number, then by number ignoring case when that is unambiguous. */
  async findByNumber(q: Queryable, scope: Scope, number: string): Promise<Invoice | undefined> {
    const w = scopeWhere(scope);
    const base = `select ${source.columns} from invoices t ${source.joins} where ${w.sql} and t.deleted_at is null`;
    // prepared: the intake workers run these for every file (the unique and the lower() indexes
    // on account, mode and number fit a generic plan whatever the statistics)
    const exact = await q.query<InvoiceRow>(`${base} and t.invoice_number = $3`, [...w.params, number], { prepare: true });
    if (exact[0]) return toInvoice(exact[0]);
    const folded = await q.query<InvoiceRow>(`${base} and lower(t.invoice_number) = lower($3) limit 2`, [...w.params, number], { prepare: true });
    return folded.length === 1 ? toInvoice(folded[0]) : undefined;
  }

  /**
   * Live invoices whose number equals one of `numbers` ignoring case and separators (matchKey in
   * domain/match-names.ts, the index of migration 0015): one probe per candidate (intake sends
   * every token of a name, its e-invoice's numbers and its subject's tokens at once).
   */
  async findNumbers(q: Queryable, scope: Scope, numbers: string[]): Promise<InvoiceNumberMatch[]> {
    if (!numbers.length) return [];
    const w = scopeWhere(scope);
    const key = (col: string) => `translate(lower(${col}), '${SEPARATORS}', '${'-'.repeat(SEPARATORS.length)}')`;
    const rows = await q.query<{ id: string; invoice_number: string; total_cents: string | number }>(
      `select t.id, t.invoice_number, t.total_cents from invoices t where ${w.sql} and t.deleted_at is null
         and ${key('t.invoice_number')} = any(array(select ${key('x')} from unnest($3::text[]) x))`,
      [...w.params, [...new Set(numbers.map((n) => n.normalize('NFC')))]],
      { prepare: true },
    );
    return rows.map((r) => ({ id: r.id, invoiceNumber: r.invoice_number, totalCents: Number(r.total_cents) }));
  }

  /** Open invoices that have no document yet, newest first (the dashboard's to-do list). */
  async openWithoutDocument(q: Queryable, scope: Scope, limit: number): Promise<Invoice[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<InvoiceRow>(
      `select ${source.columns} from invoices t ${source.joins} where ${w.sql} and t.deleted_at is null and t.status = 'open' and t.document_id is null
       order by t.seq desc limit ${Math.max(1, Math.floor(limit))}`,
      w.params,
    );
    return rows.map(toInvoice);
  }

  async page(q: Queryable, scope: Scope, req: PageRequest, status?: InvoiceStatus): Promise<Page<Invoice>> {
    const page = await pageScoped<InvoiceRow>(q, source, scope, req, { status });
    return { ...page, items: page.items.map(toInvoice) };
  }

  /**
   * Inserts the invoice for a live customer of the scope, in one statement. Undefined when nothing
   * was inserted: the customer is missing or deleted, or the number is taken. The customer row is
   * key-share-locked (as the foreign key check would), so a concurrent customer delete (which
   * locks it for update before counting invoices) either sees this invoice or makes this insert miss.
   */
  async insertForCustomer(q: Queryable, scope: Scope, inv: NewInvoice): Promise<Invoice | undefined> {
    // only what the database adds comes back: every returned column costs the driver a parser per row
    const rows = await q.query<{ customer_code: string; name: string }>(
      `with c as (
         select id, customer_code, name from customers t where t.id = $4 and t.account_id || '' = $2 and t.mode = $3 and t.deleted_at is null for key share
       ), ins as (
         insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status)
         select $1, $2, $3, c.id, $5, $6, $7, $8, $9, $10 from c
         on conflict (account_id, mode, invoice_number) where deleted_at is null do nothing
         returning customer_id
       )
       select c.customer_code, c.name from ins join c on c.id = ins.customer_id`,
      [
        inv.id,
        scope.accountId,
        scope.mode,
        inv.customerId,
        inv.invoiceNumber,
        inv.invoiceDate,
        inv.invoiceDuedate,
        inv.totalCents,
        inv.balanceCents,
        inv.status,
      ],
      { prepare: true },
    );
    const r = rows[0];
    return (
      r && {
        id: inv.id,
        status: inv.status,
        invoiceNumber: inv.invoiceNumber,
        invoiceDate: inv.invoiceDate,
        invoiceDuedate: inv.invoiceDuedate,
        totalCents: inv.totalCents,
        balanceCents: inv.balanceCents,
        document: null,
        customer: { id: inv.customerId, number: r.customer_code, name: r.name },
      }
    );
  }

  async update(q: Queryable, scope: Scope, id: string, patch: InvoicePatch & { documentId?: string | null }): Promise<void> {
    await updateScoped(q, 'invoices', scope, id, patch, (k) => (k === 'documentId' ? 'document_id' : PATCH_COLUMNS[k as keyof InvoicePatch]));
  }

  async markDeleted(q: Queryable, scope: Scope, id: string): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(`update invoices t set deleted_at = now() where ${w.sql} and t.deleted_at is null`, w.params);
  }
}
