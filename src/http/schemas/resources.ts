import { Type } from './typebox.ts';
import { LANGUAGES, PAYMENT_METHODS } from '../../domain/models.ts';
import { Amount, DateDMY, Link, ListLinks, Nullable, SelfLinks } from './common.ts';

const Str = Nullable(Type.String());
const CustomerRef = Type.Object({ id: Type.String(), number: Type.String(), name: Type.String() });

export const CustomerSchema = Type.Object(
  {
    resource: Type.Literal('customer'),
    id: Type.String(),
    customerCode: Type.String(),
    number: Type.String({ description: 'The customerCode again, as list examples of the spec show it' }),
    name: Type.String(),
    address: Type.Object({ address: Str, postalcode: Str, city: Str, country: Type.String() }),
    contact: Str,
    phone: Str,
    mobile: Str,
    email: Str,
    invoiceEmail: Str,
    registrationNumber: Str,
    language: Nullable(Type.String({ enum: [...LANGUAGES] })),
    _links: SelfLinks,
  },
  { $id: 'Customer' },
);

export const CustomerSearchSchema = Type.Object({ resource: Type.Literal('customer'), id: Type.String(), customerCode: Type.String(), _links: SelfLinks });

export const InvoiceSchema = Type.Object(
  {
    resource: Type.Literal('invoice'),
    id: Type.String(),
    status: Type.String({ enum: ['concept', 'open', 'paid', 'cancelled'] }),
    invoiceNumber: Type.String(),
    invoiceDate: DateDMY,
    invoiceDuedate: DateDMY,
    invoiceTotal: Amount,
    invoiceBalance: Amount,
    document: Nullable(Type.String({ description: 'File name of the attached PDF' })),
    customer: CustomerRef,
    _links: SelfLinks,
  },
  { $id: 'Invoice' },
);

export const PaymentCreatedSchema = Type.Object(
  {
    resource: Type.Literal('payment'),
    id: Type.String(),
    invoice: Type.String(),
    date: DateDMY,
    amount: Amount,
    method: Type.String({ enum: [...PAYMENT_METHODS] }),
    invoiceTotal: Amount,
    invoiceBalance: Amount,
    _links: SelfLinks,
  },
  { $id: 'PaymentCreated' },
);

export const PaymentItemSchema = Type.Object(
  {
    resource: Type.Literal('payment'),
    id: Type.String(),
    date: DateDMY,
    amount: Amount,
    method: Type.String({ enum: [...PAYMENT_METHODS] }),
    invoice: Type.Object({ id: Type.String(), number: Type.String(), invoiceTotal: Amount, invoiceBalance: Amount }),
    customer: CustomerRef,
    _links: SelfLinks,
  },
  { $id: 'Payment' },
);

export const DocumentSchema = Type.Object(
  {
    resource: Type.Literal('document'),
    id: Type.String(),
    invoice: Type.String(),
    filename: Type.String(),
    mediatype: Type.String(),
    size: Type.Integer(),
    sha256: Type.String(),
    source: Type.String({ description: 'api, ftp, sftp, mail or http (POST /v2/imports)' }),
    createdAt: Type.String({ format: 'date-time' }),
    _links: Type.Object({
      self: Link, content: Type.Object({ href: Type.String(), type: Type.Literal('application/pdf') }),
      original: Type.Optional(Type.Object({ href: Type.String(), type: Type.Literal('application/xml') }, { description: 'Only for a PDF rendered from an XML e-invoice: that XML, as received (docs/matching.md)' })),
    }),
  },
  { $id: 'Document' },
);

export const listOf = (key: string, item: ReturnType<typeof Type.Object>) =>
  Type.Object({ [key]: Type.Array(item), count: Type.Integer(), links: ListLinks });
