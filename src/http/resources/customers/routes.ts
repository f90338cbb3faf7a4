// The customer resource's routes.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../../http-deps.ts';
import { ApiError } from '../../api-error.ts';
import { CreateBody, CustomerSchema, CustomerSearchSchema, Params, PatchBody } from './schema.ts';
import { HAL, commonErrors, security } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';
import { linkBase, scopeOf } from '../../request-context.ts';
import { listRoute } from '../list-route.ts';
import { presentCustomer } from './presenter.ts';

/** A boolean query flag as clients write it: true/false, 1/0, yes/no (any case); absent is false. */
function parseFlag(raw: string | undefined, field: string): boolean {
  const v = (raw ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no'].includes(v)) return false;
  if (['true', '1', 'yes'].includes(v)) return true;
  throw ApiError.wrongFormat(field);
}

export const customerRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const base = linkBase(c.config.publicUrl);
    const tags = ['customers'];

    app.post(
      '/v2/customers',
      {
        config: { aliases: { number: 'customerCode' } },
        schema: {
          tags,
          security,
          summary: 'Create a customer (an existing CustomerCode returns that customer, updated only with Overwrite=true)',
          querystring: Type.Object({ overwrite: Type.Optional(Type.String({ description: 'true or false (also 1/0, yes/no)' })) }),
          body: CreateBody,
          response: { 200: CustomerSchema, 201: CustomerSchema, ...commonErrors(409, 415, 422) },
        },
      },
      async (req, reply) => {
        const { customer, created } = await c.customers.create(scopeOf(req), req.body, parseFlag(req.query.overwrite, 'overwrite'));
        return reply
          .code(created ? 201 : 200)
          .type(HAL)
          .send(presentCustomer(base(req), customer));
      },
    );

    listRoute(app, c.config.publicUrl, {
      path: '/v2/customers',
      key: 'customers',
      item: CustomerSchema,
      tags,
      summary: 'List customers, newest first',
      list: (scope, page) => c.customers.list(scope, page),
      present: presentCustomer,
    });

    app.get(
      '/v2/customers/search',
      {
        schema: {
          tags,
          security,
          summary: "Find a customer by the client's customer code",
          querystring: Type.Object({ customer: Type.String({ maxLength: 250, description: 'The customer code' }) }),
          response: { 200: CustomerSearchSchema, ...commonErrors(404) },
        },
      },
      async (req, reply) => {
        const cst = await c.customers.findByCode(scopeOf(req), req.query.customer);
        const p = presentCustomer(base(req), cst);
        return reply.type(HAL).send({ resource: p.resource, id: p.id, customerCode: p.customerCode, _links: p._links });
      },
    );

    app.get(
      '/v2/customers/:customer_id',
      {
        schema: { tags, security, summary: 'Get a customer', params: Params, response: { 200: CustomerSchema, ...commonErrors(404, 410) } },
      },
      async (req, reply) => reply.type(HAL).send(presentCustomer(base(req), await c.customers.get(scopeOf(req), req.params.customer_id))),
    );

    app.patch(
      '/v2/customers/:customer_id',
      {
        schema: {
          tags,
          security,
          summary: 'Update a customer',
          params: Params,
          body: PatchBody,
          response: { 200: CustomerSchema, ...commonErrors(404, 410, 415, 422) },
        },
      },
      async (req, reply) => reply.type(HAL).send(presentCustomer(base(req), await c.customers.update(scopeOf(req), req.params.customer_id, req.body))),
    );

    app.delete(
      '/v2/customers/:customer_id',
      {
        schema: { tags, security, summary: 'Delete a customer without invoices', params: Params, response: { 204: Type.Null(), ...commonErrors(404, 410) } },
      },
      async (req, reply) => {
        await c.customers.delete(scopeOf(req), req.params.customer_id);
        return reply.code(204).send(null);
      },
    );
  };
