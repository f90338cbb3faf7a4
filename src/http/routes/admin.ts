import { timingSafeEqual, createHash } from 'node:crypto';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Container } from '../../app/container.ts';
import { ApiError } from '../../domain/errors.ts';
import { commonErrors } from '../schemas/common.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Bearer <ADMIN_TOKEN>, compared in constant time. */
export function adminGuard(token: string) {
  const expected = digest(token);
  return async (req: FastifyRequest) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !timingSafeEqual(digest(m[1]), expected)) throw ApiError.unauthorized('Send the admin token as Authorization: Bearer <ADMIN_TOKEN>');
  };
}

const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  ftpUsername: Type.String(),
  importAddresses: Type.Object({ live: Type.String(), test: Type.String() }),
  createdAt: Type.String(),
});
const AccountWithKeys = Type.Object({ ...Account.properties, liveKey: Type.String(), testKey: Type.String() });
const adminSecurity = [{ adminAuth: [] }];

export const adminRoutes = (c: Container, token: string): FastifyPluginAsyncTypebox => async (app) => {
  app.addHook('onRequest', adminGuard(token));
  const tags = ['admin'];

  app.post('/admin/accounts', {
    schema: { tags, security: adminSecurity, summary: 'Create an account with a live and a test key (shown once)', body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 250 }) }), response: { 201: AccountWithKeys, ...commonErrors() } },
  }, async (req, reply) => reply.code(201).send(await c.accounts.create(req.body.name)));

  app.get('/admin/accounts/:id', {
    schema: { tags, security: adminSecurity, summary: 'An account, without keys', params: Type.Object({ id: Type.String({ maxLength: 36 }) }), response: { 200: Account, ...commonErrors(404) } },
  }, async (req) => c.accounts.get(req.params.id));

  app.post('/admin/accounts/:id/keys/:mode', {
    schema: {
      tags, security: adminSecurity, summary: 'Replace the live or test key; the old key stops working at once',
      params: Type.Object({ id: Type.String({ maxLength: 36 }), mode: Type.Union([Type.Literal('live'), Type.Literal('test')]) }),
      response: { 201: Type.Object({ key: Type.String() }), ...commonErrors(404) },
    },
  }, async (req, reply) => reply.code(201).send({ key: await c.accounts.rotateKey(req.params.id, req.params.mode) }));
};
