// Every resource of the /v2 API, registered by http/server.ts the same way, in this order, behind
// the API key. A resource is one folder here: schema.ts (what its routes take and answer),
// presenter.ts (domain records to those bodies) and routes.ts (the Fastify plugin that is listed
// below). How to add one: docs/architecture.md, "How to add a resource".
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../http-deps.ts';
import { accountRoutes } from './account/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { documentRoutes } from './documents/routes.ts';
import { importRoutes } from './imports/routes.ts';
import { invoiceRoutes } from './invoices/routes.ts';
import { paymentRoutes } from './payments/routes.ts';
import { trailRoutes } from './trail/routes.ts';
import { uploadKeyRoutes } from './upload-keys/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';

export const API_RESOURCES: ((c: HttpDeps) => FastifyPluginAsyncTypebox)[] = [
  accountRoutes,
  uploadKeyRoutes,
  trailRoutes,
  customerRoutes,
  invoiceRoutes,
  documentRoutes,
  paymentRoutes,
  importRoutes,
  webhookRoutes,
];
