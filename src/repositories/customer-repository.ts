import type { Queryable } from '../db/database.ts';
import type { Customer, CustomerFields } from '../domain/models.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import type { Mode } from '../domain/scope.ts';
import { findWithTombstone, pageScoped, updateScoped, scopeWhere, scopeWhereId, type Found, type ScopedSource } from './scoped.ts';

const source: ScopedSource = { table: 'customers', columns: 't.*', tombstones: true };

const COLUMNS: Record<keyof CustomerFields, string> = {
  name: 'name',
  address: 'address',
  postalcode: 'postalcode',
  city: 'city',
  country: 'country',
  contact: 'contact',
  phone: 'phone',
  mobile: 'mobile',
  email: 'email',
  invoiceEmail: 'invoice_email',
  registrationNumber: 'registration_number',
  language: 'language',
};

/** A row of customers, as `select *` returns it: the one-word fields as the domain has them, the rest in snake case. */
interface CustomerRow extends Pick<CustomerFields, 'name' | 'address' | 'postalcode' | 'city' | 'country' | 'contact' | 'phone' | 'mobile' | 'email'> {
  seq: number;
  id: string;
  account_id: string;
  mode: Mode;
  customer_code: string;
  invoice_email: string | null;
  registration_number: string | null;
  language: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const toCustomer = (r: CustomerRow): Customer => ({
  id: r.id,
  customerCode: r.customer_code,
  name: r.name,
  address: r.address,
  postalcode: r.postalcode,
  city: r.city,
  country: r.country,
  contact: r.contact,
  phone: r.phone,
  mobile: r.mobile,
  email: r.email,
  invoiceEmail: r.invoice_email,
  registrationNumber: r.registration_number,
  language: r.language,
});

export class CustomerRepository {
  find(q: Queryable, scope: Scope, id: string, lock = false): Promise<Found<Customer>> {
    return findWithTombstone(q, source, scope, id, toCustomer, lock);
  }

  async findByCode(q: Queryable, scope: Scope, code: string): Promise<Customer | undefined> {
    const w = scopeWhere(scope);
    const rows = await q.query<CustomerRow>(`select * from customers t where ${w.sql} and t.customer_code = $3 and t.deleted_at is null`, [...w.params, code]);
    return rows[0] && toCustomer(rows[0]);
  }

  async page(q: Queryable, scope: Scope, req: PageRequest): Promise<Page<Customer>> {
    const page = await pageScoped<CustomerRow>(q, source, scope, req);
    return { ...page, items: page.items.map(toCustomer) };
  }

  /** Inserts, or returns undefined when the code is taken (the unique index decides under concurrency). */
  async insert(q: Queryable, scope: Scope, customer: Customer): Promise<Customer | undefined> {
    const keys = Object.keys(COLUMNS) as (keyof CustomerFields)[];
    const cols = ['id', 'account_id', 'mode', 'customer_code', ...keys.map((k) => COLUMNS[k])];
    const values = [customer.id, scope.accountId, scope.mode, customer.customerCode, ...keys.map((k) => customer[k])];
    const rows = await q.query<CustomerRow>(
      `insert into customers (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')})
       on conflict (account_id, mode, customer_code) where deleted_at is null do nothing returning *`,
      values,
    );
    return rows[0] && toCustomer(rows[0]);
  }

  async update(q: Queryable, scope: Scope, id: string, patch: Partial<CustomerFields>): Promise<Customer> {
    const rows = await updateScoped<CustomerRow>(q, 'customers', scope, id, patch, (k) => COLUMNS[k as keyof CustomerFields]);
    return toCustomer(rows[0]);
  }

  async countLiveInvoices(q: Queryable, scope: Scope, id: string): Promise<number> {
    const w = scopeWhere(scope);
    const rows = await q.query<{ n: number }>(`select count(*)::int as n from invoices t where ${w.sql} and t.customer_id = $3 and t.deleted_at is null`, [
      ...w.params,
      id,
    ]);
    return rows[0].n;
  }

  async markDeleted(q: Queryable, scope: Scope, id: string): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(`update customers t set deleted_at = now() where ${w.sql} and t.deleted_at is null`, w.params);
  }
}
