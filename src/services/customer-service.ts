import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { LANGUAGES, UNRELEASED_LANGUAGES, type Customer, type CustomerFields } from '../domain/models.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import type { Found } from '../repositories/scoped.ts';

export type CustomerInput = { customerCode: string } & Partial<Record<keyof CustomerFields, string>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Checks what the schema cannot say and turns empty strings into "not given". */
function cleanFields(input: Partial<Record<keyof CustomerFields, string>>): Partial<CustomerFields> {
  const out: Partial<CustomerFields> = {};
  // biome-ignore lint/suspicious/noExplicitAny: the fields' types differ per key
  for (const [k, v] of Object.entries(input)) if (v !== undefined) (out as any)[k] = v.trim() === '' ? null : v.trim();
  for (const field of ['email', 'invoiceEmail'] as const) {
    if (out[field] && !EMAIL.test(out[field]!)) throw DomainError.wrongFormat(field);
  }
  if (out.country != null) {
    if (!/^[A-Za-z]{2}$/.test(out.country)) throw DomainError.wrongFormat('country');
    out.country = out.country.toUpperCase();
  }
  if (out.language != null) {
    const lang = out.language.toLowerCase();
    if ((UNRELEASED_LANGUAGES as readonly string[]).includes(lang)) throw DomainError.unprocessable(`Language ${lang} is not released yet`, 'language');
    if (!(LANGUAGES as readonly string[]).includes(lang)) throw DomainError.invalid(`Field language must be one of ${LANGUAGES.join(', ')}`, 'language');
    out.language = lang;
  }
  return out;
}

export class CustomerService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'customers'>,
  ) {}

  /** Creates a customer; an existing code returns the existing one (updated with overwrite). */
  async create(scope: Scope, input: CustomerInput, overwrite: boolean): Promise<{ customer: Customer; created: boolean }> {
    const code = input.customerCode.trim();
    if (!code) throw DomainError.invalid('Field customerCode is required', 'customerCode');
    const { customerCode: _code, ...rest } = input;
    const fields = cleanFields(rest);
    if (!fields.name) throw DomainError.invalid('Field name is required', 'name');
    if ('country' in fields && fields.country == null) fields.country = 'NL'; // an empty Country means the default
    return this.db.transaction(async (tx) => {
      const existing = await this.repos.customers.findByCode(tx, scope, code);
      if (existing) {
        return { customer: overwrite ? await this.repos.customers.update(tx, scope, existing.id, fields) : existing, created: false };
      }
      const record: Customer = {
        id: newId('cst'),
        customerCode: code,
        name: fields.name!,
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
        ...(Object.fromEntries(Object.entries(fields).filter(([, v]) => v != null)) as Partial<CustomerFields>),
      };
      const inserted = await this.repos.customers.insert(tx, scope, record);
      if (inserted) return { customer: inserted, created: true };
      // lost a race with a concurrent create of the same code
      return { customer: (await this.repos.customers.findByCode(tx, scope, code))!, created: false };
    });
  }

  async get(scope: Scope, id: string): Promise<Customer> {
    return DomainError.unlessDeleted(await this.find(scope, id), 'customer', id);
  }

  /** The customer with this id, deleted ones included (deleted says so). */
  find(scope: Scope, id: string): Promise<Found<Customer>> {
    return this.repos.customers.find(this.db, scope, id);
  }

  async findByCode(scope: Scope, code: string): Promise<Customer> {
    const customer = await this.repos.customers.findByCode(this.db, scope, code);
    if (!customer) throw new DomainError('not_found', `No customer exists with customerCode ${code}.`);
    return customer;
  }

  list(scope: Scope, req: PageRequest): Promise<Page<Customer>> {
    return this.repos.customers.page(this.db, scope, req);
  }

  async update(scope: Scope, id: string, input: Partial<Record<keyof CustomerFields, string>>): Promise<Customer> {
    const fields = cleanFields(input);
    if ('name' in fields && !fields.name) throw DomainError.invalid('Field name may not be empty', 'name');
    if ('country' in fields && fields.country == null) fields.country = 'NL';
    await this.get(scope, id);
    return this.repos.customers.update(this.db, scope, id, fields);
  }

  async delete(scope: Scope, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      // locked first: an invoice being created for this customer is either counted or refused
      DomainError.unlessDeleted(await this.repos.customers.find(tx, scope, id, true), 'customer', id);
      if ((await this.repos.customers.countLiveInvoices(tx, scope, id)) > 0) throw DomainError.invalid('Customer is not empty');
      await this.repos.customers.markDeleted(tx, scope, id);
    });
  }
}
