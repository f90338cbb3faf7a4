// A service is built from the repositories it is handed (app/container.ts hands the SQL ones). Here
// InvoiceService and the event outbox run on repositories that keep their rows in memory, over a
// database that refuses every statement: SQL that a repository below did not take over fails the test.
import { describe, expect, it } from 'vitest';
import { UnitOfWork } from '../../src/db/units.ts';
import type { Database, Queryable } from '../../src/db/database.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Customer, DocumentMeta, Invoice } from '../../src/domain/models.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { CustomerRepository } from '../../src/repositories/customer-repository.ts';
import { DocumentRepository } from '../../src/repositories/document-repository.ts';
import { InvoiceRepository, type InvoicePatch, type NewInvoice } from '../../src/repositories/invoice-repository.ts';
import type { Found } from '../../src/repositories/scoped.ts';
import { WebhookEventRepository } from '../../src/repositories/webhook-event-repository.ts';
import { DomainEvents, type DomainEventMap } from '../../src/services/domain-events.ts';
import { CustomerService } from '../../src/services/customer-service.ts';
import { DocumentService } from '../../src/services/document-service.ts';
import { DatabaseStore } from '../../src/storage/database-store.ts';
import { EventOutbox } from '../../src/services/event-outbox.ts';
import { InvoiceService } from '../../src/services/invoice-service.ts';

const refuse = async (): Promise<never> => {
  throw new Error('a statement reached the database');
};
const noSql: Database = {
  kind: 'pglite',
  query: refuse,
  transaction: (fn) => fn({ query: refuse, exec: refuse }),
  close: async () => {},
};

const scope: Scope = { accountId: 'acc_1', mode: 'test' };
const key = (s: Scope, id: string) => `${s.accountId}:${s.mode}:${id}`;

class MemoryCustomers extends CustomerRepository {
  readonly rows = new Map<string, Found<Customer>>();
  override async find(_q: Queryable, s: Scope, id: string): Promise<Found<Customer>> {
    return this.rows.get(key(s, id));
  }
}

class MemoryInvoices extends InvoiceRepository {
  readonly rows = new Map<string, { record: Invoice; deleted: boolean }>();
  constructor(private readonly customers: MemoryCustomers) {
    super();
  }

  override async insertForCustomer(_q: Queryable, s: Scope, inv: NewInvoice): Promise<Invoice | undefined> {
    const customer = this.customers.rows.get(key(s, inv.customerId));
    const taken = [...this.rows.values()].some((r) => !r.deleted && r.record.invoiceNumber === inv.invoiceNumber);
    if (!customer || customer.deleted || taken) return undefined;
    const { customerId: _, ...fields } = inv;
    const record: Invoice = { ...fields, document: null, customer: { id: inv.customerId, number: customer.record.customerCode, name: customer.record.name } };
    this.rows.set(key(s, inv.id), { record, deleted: false });
    return record;
  }

  override async find(_q: Queryable, s: Scope, id: string): Promise<Found<Invoice>> {
    const row = this.rows.get(key(s, id));
    return row && { record: { ...row.record }, deleted: row.deleted };
  }

  override async findByNumber(_q: Queryable, s: Scope, number: string): Promise<Invoice | undefined> {
    const live = [...this.rows.entries()].filter(([k, r]) => k.startsWith(key(s, '')) && !r.deleted).map(([, r]) => r.record);
    const folded = live.filter((r) => r.invoiceNumber.toLowerCase() === number.toLowerCase());
    return live.find((r) => r.invoiceNumber === number) ?? (folded.length === 1 ? folded[0] : undefined);
  }

  override async update(_q: Queryable, s: Scope, id: string, patch: InvoicePatch): Promise<void> {
    const row = this.rows.get(key(s, id))!;
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) Object.assign(row.record, { [k]: v });
  }

  /** the Queryable each delete ran on: the invoice's transaction */
  readonly deletedOn: Queryable[] = [];
  override async markDeleted(q: Queryable, s: Scope, id: string): Promise<void> {
    this.deletedOn.push(q);
    this.rows.get(key(s, id))!.deleted = true;
  }
}

/** The current document of each invoice; records the Queryable every statement ran on. */
class MemoryDocuments extends DocumentRepository {
  readonly current = new Map<string, DocumentMeta>();
  readonly ranOn: Queryable[] = [];
  override async findCurrentForInvoice(q: Queryable, s: Scope, invoiceId: string): Promise<DocumentMeta | undefined> {
    this.ranOn.push(q);
    return this.current.get(key(s, invoiceId));
  }

  override async deleteForInvoice(q: Queryable, s: Scope, invoiceId: string): Promise<string[]> {
    this.ranOn.push(q);
    this.current.delete(key(s, invoiceId));
    return [];
  }
}

class MemoryEvents extends WebhookEventRepository {
  readonly written: { type: string; body: string }[] = [];
  override async insert(_q: Queryable, _s: Scope, e: { id: string; type: string; body: string }): Promise<void> {
    this.written.push(e);
  }
}

function build() {
  const customers = new MemoryCustomers();
  const invoices = new MemoryInvoices(customers);
  const documents = new MemoryDocuments();
  const webhookEvents = new MemoryEvents();
  const events = new DomainEvents();
  const created: DomainEventMap['invoiceCreated'][] = [];
  events.on('invoiceCreated', (e) => void created.push(e));
  // every endpoint wants every event: what the outbox writes is the test's to read
  const units = new UnitOfWork(noSql);
  const outbox = new EventOutbox({ db: noSql, units, repos: { webhookEvents }, present: (subject) => subject, subscriptions: { wants: async () => true } });
  // the neighbours' services, on their own repositories: the only way InvoiceService reaches their rows
  const neighbours = {
    customers: new CustomerService(noSql, { customers }),
    documents: new DocumentService({
      db: noSql,
      repos: { documents },
      store: new DatabaseStore(noSql),
      checkPdf: refuse,
      outbox,
      units,
      renderXml: refuse,
      readText: refuse,
      sharedBytes: { release: refuse },
    }),
  };
  const service = new InvoiceService({ db: noSql, repos: { invoices }, neighbours, maxCents: 1_000_000_00, events, outbox, units });
  const customer: Customer = {
    id: 'cst_1',
    customerCode: 'C-1',
    name: 'Bakkerij',
    address: null,
    postalcode: null,
    city: null,
    country: 'NL',
    contact: null,
    phone: null,
    mobile: null,
    email: null,
    invoiceEmail: null,
    registrationNumber: null,
    language: null,
  };
  customers.rows.set(key(scope, customer.id), { record: customer, deleted: false });
  return { service, customers, invoices, documents, webhookEvents, created };
}

const input = { customer: 'cst_1', invoiceNumber: ' INV-7 ', invoiceDate: '05-01-2026', invoiceDuedate: '04-02-2026', invoiceTotal: '12.50' };

describe('InvoiceService on the repositories it is handed', () => {
  it('creates an invoice through its invoice repository and tells of it', async () => {
    const { service, invoices, created } = build();
    const invoice = await service.create(scope, input);
    expect(invoice).toMatchObject({
      invoiceNumber: 'INV-7',
      totalCents: 1250,
      balanceCents: 1250,
      status: 'open',
      customer: { number: 'C-1', name: 'Bakkerij' },
    });
    expect((await invoices.find(noSql, scope, invoice.id))?.record).toEqual(invoice);
    await expect.poll(() => created).toEqual([{ scope, invoice }]);
  });

  it('explains a refused insert by what its customer repository finds', async () => {
    const { service, customers } = build();
    await service.create(scope, input);
    await expect(service.create(scope, input)).rejects.toMatchObject({ kind: 'conflict', field: 'invoiceNumber' });
    await expect(service.create(scope, { ...input, invoiceNumber: 'INV-8', customer: 'cst_9' })).rejects.toMatchObject({
      kind: 'not_found',
      field: 'customer',
    });
    customers.rows.get(key(scope, 'cst_1'))!.deleted = true;
    const gone = await service.create(scope, { ...input, invoiceNumber: 'INV-8' }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DomainError);
    expect(gone).toMatchObject({ kind: 'gone', field: 'customer' });
  });

  it('a balance brought to zero marks the invoice paid and writes invoice.paid in the outbox', async () => {
    const { service, webhookEvents } = build();
    const { id } = await service.create(scope, input);
    await expect(service.update(scope, id, { invoiceBalance: '13.00' })).rejects.toMatchObject({ kind: 'unprocessable' });
    expect(webhookEvents.written).toEqual([]);
    const paid = await service.update(scope, id, { invoiceBalance: '0', invoiceStatus: 'paid' });
    expect(paid).toMatchObject({ id, balanceCents: 0, status: 'paid' });
    expect(webhookEvents.written.map((e) => [e.type, JSON.parse(e.body).data.invoice.status])).toEqual([['invoice.paid', 'paid']]);
  });

  it('intake finds invoices only through the service: by id, by number, or neither', async () => {
    const { service } = build();
    const { id } = await service.create(scope, input);
    expect((await service.byIdOrNumber(scope, id)).id).toBe(id);
    expect((await service.byIdOrNumber(scope, ' INV-7')).id).toBe(id);
    await expect(service.byIdOrNumber(scope, 'INV-404')).rejects.toMatchObject({ kind: 'not_found', field: 'invoice' });
  });

  it("a deleted invoice takes its document along through DocumentService, in the invoice's transaction", async () => {
    const { service, invoices, documents, webhookEvents } = build();
    const { id } = await service.create(scope, input);
    const document: DocumentMeta = {
      id: 'doc_1',
      invoiceId: id,
      filename: 'INV-7.pdf',
      mediaType: 'application/pdf',
      size: 4,
      sha256: 'x',
      source: 'api',
      createdAt: new Date(0),
      matchedBy: null,
      originalName: null,
    };
    documents.current.set(key(scope, id), document);
    await service.delete(scope, id);
    expect(documents.current.size).toBe(0);
    expect(webhookEvents.written.map((e) => [e.type, JSON.parse(e.body).data.document.id])).toEqual([['document.deleted', 'doc_1']]);
    const [tx] = invoices.deletedOn;
    expect(tx).not.toBe(noSql);
    expect(documents.ranOn).toEqual([tx, tx]);
  });
});
