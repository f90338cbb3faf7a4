// The customer resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Id, Nullable, SelfLinks, Str } from '../../schemas/common.ts';
import { LANGUAGES } from '../../../domain/models.ts';
import { Type } from '../../schemas/typebox.ts';

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

const s = (maxLength: number, description?: string) => Type.Optional(Type.String({ maxLength, description }));

const fields = {
  address: s(250),
  postalcode: s(10),
  city: s(250),
  country: s(2, 'Two-character country code; NL when omitted'),
  contact: s(250),
  phone: s(20),
  mobile: s(20),
  email: s(250),
  invoiceEmail: s(250),
  registrationNumber: s(10),
  language: s(20, 'dutch, english, german or french'),
};

export const CreateBody = Type.Object({
  customerCode: Type.String({ maxLength: 250, description: 'Also accepted as `number`' }),
  name: Type.String({ maxLength: 250 }),
  ...fields,
});

export const PatchBody = Type.Object({ name: s(250), ...fields });

export const Params = Type.Object({ customer_id: Id('Service customer id') });
