// The payment resource's routes.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../../http-deps.ts';
import { CreateBody, PaymentCreatedSchema, PaymentItemSchema } from './schema.ts';
import { HAL, Id, commonErrors, security } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';
import { linkBase, scopeOf } from '../../request-context.ts';
import { listRoute } from '../list-route.ts';
import { presentPaymentCreated, presentPaymentItem } from './presenter.ts';

export const paymentRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const base = linkBase(c.config.publicUrl);
    const tags = ['payments'];

    app.post(
      '/v2/payments',
      {
        schema: {
          tags,
          security,
          summary: 'Record a payment; it lowers the invoice balance, and at 0.00 the invoice is paid',
          body: CreateBody,
          response: { 201: PaymentCreatedSchema, ...commonErrors(404, 410, 415, 422) },
        },
      },
      async (req, reply) => {
        const payment = await c.payments.create(scopeOf(req), { ...req.body, amount: String(req.body.amount) });
        return reply
          .code(201)
          .type(HAL)
          .send(presentPaymentCreated(base(req), payment));
      },
    );

    listRoute(app, c.config.publicUrl, {
      path: '/v2/payments',
      key: 'payments',
      item: PaymentItemSchema,
      tags,
      summary: 'List payments, newest first',
      list: (scope, page) => c.payments.list(scope, page),
      present: presentPaymentItem,
    });

    app.get(
      '/v2/payments/:payment_id',
      {
        schema: {
          tags,
          security,
          summary: 'Get a payment',
          params: Type.Object({ payment_id: Id('Payment id') }),
          response: { 200: PaymentItemSchema, ...commonErrors(404) },
        },
      },
      async (req, reply) => reply.type(HAL).send(presentPaymentItem(base(req), await c.payments.get(scopeOf(req), req.params.payment_id))),
    );
  };
