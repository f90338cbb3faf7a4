import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { ApiError } from '../api-error.ts';
import { presentCustomer } from '../presenters.ts';
import { linkBase, scopeOf } from '../request-context.ts';
import { commonErrors, HAL, Id, security } from '../schemas/common.ts';
import { CustomerSchema, CustomerSearchSchema } from '../schemas/resources.ts';
import { listRoute } from './list-route.ts';

const s = (maxLength: number, description?: string) => Type.Optional(Type.String({ maxLength, description }));
const fields = {
  address: s(250), postalcode: s(10), city: s(250), country: s(2, 'Two-character country code; NL when omitted'), contact: s(250),
  phone: s(20), mobile: s(20), email: s(250), invoiceEmail: s(250), registrationNumber: s(10), language: s(20, 'dutch, english, german or french'),
};
const CreateBody = Type.Object({ customerCode: Type.String({ maxLength: 250, description: 'Also accepted as `number`' }), name: Type.String({ maxLength: 250 }), ...fields });
const PatchBody = Type.Object({ name: s(250), ...fields });
const Params = Type.Object({ customer_id: Id('Service customer id') });

/** A boolean query flag as clients write it: true/false, 1/0, yes/no (any case); absent is false. */
export function parseFlag(raw: string | undefined, field: string): boolean {
  const v = (raw ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no'].includes(v)) return false;
  if (['true', '1', 'yes'].includes(v)) return true;
  throw ApiError.wrongFormat(field);
}

export const customerRoutes = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const base = linkBase(c.config.publicUrl);
  const tags = ['customers'];

  app.post('/v2/customers', {
    config: { aliases: { number: 'customerCode' } },
    schema: {
      tags, security, summary: 'Create a customer (an existing CustomerCode returns that customer, updated only with Overwrite=true)',
      querystring: Type.Object({ overwrite: Type.Optional(Type.String({ description: 'true or false (also 1/0, yes/no)' })) }),
      body: CreateBody,
      response: { 200: CustomerSchema, 201: CustomerSchema, ...commonErrors(409, 415, 422) },
    },
  }, async (req, reply) => {
    const { customer, created } = await c.customers.create(scopeOf(req), req.body, parseFlag(req.query.overwrite, 'overwrite'));
    return reply.code(created ? 201 : 200).type(HAL).send(presentCustomer(base(req), customer));
  });

  listRoute(app, c.config.publicUrl, {
    path: '/v2/customers', key: 'customers', item: CustomerSchema, tags, summary: 'List customers, newest first',
    list: (scope, page) => c.customers.list(scope, page), present: presentCustomer,
  });

  app.get('/v2/customers/search', {
    schema: {
      tags, security, summary: 'Find a customer by the client\'s customer code',
      querystring: Type.Object({ customer: Type.String({ maxLength: 250, description: 'The customer code' }) }),
      response: { 200: CustomerSearchSchema, ...commonErrors(404) },
    },
  }, async (req, reply) => {
    const cst = await c.customers.findByCode(scopeOf(req), req.query.customer);
    const p = presentCustomer(base(req), cst);
    return reply.type(HAL).send({ resource: p.resource, id: p.id, customerCode: p.customerCode, _links: p._links });
  });

  app.get('/v2/customers/:customer_id', {
    schema: { tags, security, summary: 'Get a customer', params: Params, response: { 200: CustomerSchema, ...commonErrors(404, 410) } },
  }, async (req, reply) => reply.type(HAL).send(presentCustomer(base(req), await c.customers.get(scopeOf(req), req.params.customer_id))));

  app.patch('/v2/customers/:customer_id', {
    schema: { tags, security, summary: 'Update a customer', params: Params, body: PatchBody, response: { 200: CustomerSchema, ...commonErrors(404, 410, 415, 422) } },
  }, async (req, reply) => reply.type(HAL).send(presentCustomer(base(req), await c.customers.update(scopeOf(req), req.params.customer_id, req.body))));

  app.delete('/v2/customers/:customer_id', {
    schema: { tags, security, summary: 'Delete a customer without invoices', params: Params, response: { 204: Type.Null(), ...commonErrors(404, 410) } },
  }, async (req, reply) => {
    await c.customers.delete(scopeOf(req), req.params.customer_id);
    return reply.code(204).send(null);
  });
};
