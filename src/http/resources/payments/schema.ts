// The payment resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Amount, AmountInput, CustomerRef, DateDMY, Id, SelfLinks } from '../../schemas/common.ts';
import { PAYMENT_METHODS } from '../../../domain/models.ts';
import { Type } from '../../schemas/typebox.ts';

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

export const CreateBody = Type.Object({
  invoice: Id('Service invoice id'),
  date: DateDMY,
  amount: AmountInput,
  method: Type.Optional(Type.String({ maxLength: 20, description: 'banktransfer (default), ideal, bancontact, sepa or creditcard' })),
});
