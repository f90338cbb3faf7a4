// The invoice resource's routes.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../../http-deps.ts';
import { CreateBody, InvoiceSchema, Params, PatchBody } from './schema.ts';
import { HAL, commonErrors, security } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';
import { linkBase, scopeOf } from '../../request-context.ts';
import { listRoute } from '../list-route.ts';
import { presentInvoice } from './presenter.ts';

const str = (v: string | number | undefined) => (v === undefined ? undefined : String(v));

export const invoiceRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const base = linkBase(c.config.publicUrl);
    const tags = ['invoices'];

    app.post(
      '/v2/invoices',
      {
        schema: {
          tags,
          security,
          summary: 'Create an invoice for an existing customer',
          body: CreateBody,
          response: { 201: InvoiceSchema, ...commonErrors(404, 409, 410, 415, 422) },
        },
      },
      async (req, reply) => {
        const b = req.body;
        const invoice = await c.invoices.create(scopeOf(req), { ...b, invoiceTotal: String(b.invoiceTotal), invoiceBalance: str(b.invoiceBalance) });
        return reply
          .code(201)
          .type(HAL)
          .send(presentInvoice(base(req), invoice));
      },
    );

    listRoute(app, c.config.publicUrl, {
      path: '/v2/invoices',
      key: 'invoices',
      item: InvoiceSchema,
      tags,
      summary: 'List invoices, newest first',
      filter: { name: 'invoicestatus', description: 'concept, open, paid or cancelled' },
      list: (scope, page, status) => c.invoices.list(scope, page, status),
      present: presentInvoice,
    });

    app.get(
      '/v2/invoices/:invoice_id',
      {
        schema: { tags, security, summary: 'Get an invoice', params: Params, response: { 200: InvoiceSchema, ...commonErrors(404, 410) } },
      },
      async (req, reply) => reply.type(HAL).send(presentInvoice(base(req), await c.invoices.get(scopeOf(req), req.params.invoice_id))),
    );

    app.patch(
      '/v2/invoices/:invoice_id',
      {
        schema: {
          tags,
          security,
          summary: 'Update an invoice (e.g. invoiceStatus=paid with invoiceBalance=0.00)',
          params: Params,
          body: PatchBody,
          response: { 200: InvoiceSchema, ...commonErrors(404, 410, 415, 422) },
        },
      },
      async (req, reply) => {
        const b = req.body;
        const invoice = await c.invoices.update(scopeOf(req), req.params.invoice_id, {
          ...b,
          invoiceTotal: str(b.invoiceTotal),
          invoiceBalance: str(b.invoiceBalance),
        });
        return reply.type(HAL).send(presentInvoice(base(req), invoice));
      },
    );

    app.delete(
      '/v2/invoices/:invoice_id',
      {
        schema: { tags, security, summary: 'Delete an invoice', params: Params, response: { 204: Type.Null(), ...commonErrors(404, 410) } },
      },
      async (req, reply) => {
        await c.invoices.delete(scopeOf(req), req.params.invoice_id);
        return reply.code(204).send(null);
      },
    );
  };
