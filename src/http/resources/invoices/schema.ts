// The invoice resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Amount, AmountInput, CustomerRef, DateDMY, Id, Nullable, SelfLinks } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';

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

const Status = Type.String({ maxLength: 10, description: 'concept, open, paid or cancelled' });

export const CreateBody = Type.Object({
  customer: Id('Service customer id'),
  invoiceNumber: Type.String({ maxLength: 100 }),
  invoiceDate: DateDMY,
  invoiceDuedate: DateDMY,
  invoiceTotal: AmountInput,
  invoiceBalance: Type.Optional(AmountInput),
  invoiceStatus: Type.Optional(Status),
});

export const PatchBody = Type.Object({
  invoiceDate: Type.Optional(DateDMY),
  invoiceDuedate: Type.Optional(DateDMY),
  invoiceTotal: Type.Optional(AmountInput),
  invoiceBalance: Type.Optional(AmountInput),
  invoiceStatus: Type.Optional(Status),
});

export const Params = Type.Object({ invoice_id: Id('Service invoice id') });
