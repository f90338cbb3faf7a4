// GET /v2/account: what an account's systems need to send files (the spec's "API section"): the
// account, the key's mode, FTP/FTPS and SFTP details and that mode's import address.
// Never a key: the FTP password is the key the caller already holds.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { HttpDeps } from '../../http-deps.ts';
import { AccountSchema, SendersBody, SendersSchema } from './schema.ts';
import { HAL, commonErrors, security } from '../../schemas/common.ts';
import { accountDetails, presentSenders } from './presenter.ts';
import { recordedChange } from '../../trail-actors.ts';
import { scopeOf } from '../../request-context.ts';

const hostName = (req: FastifyRequest) => req.hostname;

export const accountRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v2/account',
      {
        schema: {
          tags: ['account'],
          security,
          summary: "The key's account and mode, FTP/FTPS connection details and import address (never a key)",
          response: { 200: AccountSchema, ...commonErrors() },
        },
      },
      async (req, reply) => reply.type(HAL).send(await accountDetails(c, scopeOf(req), hostName(req))),
    );

    const senders = { tags: ['account'], security };
    app.get(
      '/v2/account/senders',
      {
        schema: {
          ...senders,
          summary: 'Who may send this mode\'s e-mail: anyone, or listed senders only (docs/mail.md, "Who may send")',
          response: { 200: SendersSchema, ...commonErrors() },
        },
      },
      async (req, reply) => reply.type(HAL).send(presentSenders(await c.senderPolicies.get(scopeOf(req)))),
    );

    app.put(
      '/v2/account/senders',
      {
        schema: {
          ...senders,
          body: SendersBody,
          response: { 200: SendersSchema, ...commonErrors() },
          summary: "Set who may send this mode's e-mail",
          description:
            'policy anyone: every sender (as before); listed: only the addresses and domains in senders, and only when the mail is authenticated for its From (DMARC pass, or SPF or DKIM aligned). Files from anyone else are held (status held) until an owner releases (POST /v2/imports/{id}/release) or discards them. 400 with field policy or senders for anything else.',
        },
      },
      async (req, reply) => {
        const policy = await recordedChange(
          c,
          req,
          () => c.senderPolicies.set(scopeOf(req), req.body),
          (p) => ({ scope: scopeOf(req), action: 'senders.changed', detail: { policy: p.policy, senders: p.senders } }),
        );
        return reply.type(HAL).send(presentSenders(policy));
      },
    );
  };
