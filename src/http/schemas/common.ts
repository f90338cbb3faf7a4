import { Type, type TSchema } from './typebox.ts';

export const HAL = 'application/hal+json';

export const ErrorSchema = Type.Object(
  {
    status: Type.Integer(),
    title: Type.String(),
    detail: Type.String(),
    field: Type.Optional(Type.String()),
  },
  { $id: 'Error', description: 'The error body of every 4xx and 5xx answer' },
);

export const Link = Type.Object({ href: Type.String(), type: Type.Literal(HAL) });
export const SelfLinks = Type.Object({ self: Link });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** Two decimals, negative for a credit note (docs/api.md, "Credit notes"). */
export const Amount = Type.String({
  pattern: '^-?\\d+\\.\\d{2}$',
  description: 'Amount with two decimals, negative for a credit note, e.g. 480.00 or -233.47',
  examples: ['480.00', '-233.47'],
});
export const DateDMY = Type.String({ description: 'Date as DD-MM-YYYY', examples: ['31-01-2026'] });
export const Id = (description: string) => Type.String({ maxLength: 36, description });
/**
 * Amounts are accepted as strings ("480.00", "480", "-233.47") or JSON numbers; the service checks
 * them (money.ts). No `pattern` here: with the validator's type coercion a string refused by one
 * would be coerced into the number branch ("1e5" read as 100000).
 */
export const AmountInput = Type.Union([Type.String(), Type.Number()], {
  description: 'Amount with up to two decimals (a decimal point or comma), at most 10 characters with the sign; negative for a credit note (-233.47)',
  examples: ['480.00', '-233.47'],
});

const ListLinks = Type.Object({ previous: Nullable(Link), next: Nullable(Link) });

export const PageQuery = {
  limit: Type.Optional(Type.String({ description: 'Page size, 1 to 250 (default 50)' })),
  from: Type.Optional(Type.String({ description: 'Id of the first item of the page (inclusive), from a links.next or links.previous href' })),
};

const errorResponses = (codes: number[]) => Object.fromEntries(codes.map((code) => [code, ErrorSchema]));

/** Every /v2 route answers these; routes add their own. */
export const commonErrors = (...extra: number[]) => errorResponses([400, 401, 429, ...extra]);

export const security = [{ bearerAuth: [] }];

export const Str = Nullable(Type.String());

export const CustomerRef = Type.Object({ id: Type.String(), number: Type.String(), name: Type.String() });

export const listOf = (key: string, item: ReturnType<typeof Type.Object>) => Type.Object({ [key]: Type.Array(item), count: Type.Integer(), links: ListLinks });
