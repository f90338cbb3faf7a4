// The people of an account (dashboard users): invite (a one-time link, valid 24 h, also e-mailed
// when SMTP_URL is set), list, remove (their sessions end). A new invite for a known e-mail is
// how a password is reset.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { commonErrors } from '../schemas/common.ts';
import { INVITE_HOURS } from '../../services/user-service.ts';
import { LANGUAGES, negotiate } from '../dashboard/i18n/i18n.ts';
import { mailInvite } from '../dashboard/invite-mail.ts';
import { OPERATOR, recordedChange } from '../trail-actors.ts';

const User = Type.Object({ id: Type.String(), email: Type.String(), status: Type.String({ enum: ['invited', 'active'] }), createdAt: Type.String() });
const Invited = Type.Object({
  id: Type.String(),
  email: Type.String(),
  inviteUrl: Type.String({ description: `Where the person sets a password; works once, for ${INVITE_HOURS} hours` }),
});
const AccountParams = Type.Object({ id: Type.String({ maxLength: 36 }) });
const adminSecurity = [{ adminAuth: [] }];

export const adminUserRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['admin'];
    app.post(
      '/admin/accounts/:id/users',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Invite a person to the dashboard (or send a known one a new invite: password reset)',
          params: AccountParams,
          body: Type.Object({
            email: Type.String({ minLength: 3, maxLength: 254 }),
            language: Type.Optional(
              Type.String({ enum: [...LANGUAGES], description: "The invite e-mail's language; default: the request's Accept-Language, else English" }),
            ),
          }),
          response: { 201: Invited, ...commonErrors(404, 409) },
        },
      },
      async (req, reply) => {
        const user = await recordedChange(
          c,
          req,
          () => c.users.invite(req.params.id, req.body.email),
          (u) => ({
            actor: OPERATOR,
            scope: { accountId: req.params.id, mode: null },
            action: 'user.invited',
            target: u.email,
            detail: { userId: u.id, role: u.role },
          }),
        );
        const inviteUrl = `${c.config.links.base}/dashboard/invite/${user.token}`;
        if (c.inviteMailer) {
          // the link is in the answer either way: a mail failure is logged, not fatal
          const { lang } = negotiate(req.body.language, req.headers['accept-language']);
          await mailInvite(c.inviteMailer, lang, user.email, inviteUrl).catch((err) =>
            req.log.warn({ err: (err as Error).message, userId: user.id }, 'invite e-mail not sent'),
          );
        }
        return reply.code(201).send({ id: user.id, email: user.email, inviteUrl });
      },
    );

    app.get(
      '/admin/accounts/:id/users',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: "The account's people",
          params: AccountParams,
          response: { 200: Type.Object({ users: Type.Array(User) }), ...commonErrors(404) },
        },
      },
      async (req) => ({ users: await c.users.list(req.params.id) }),
    );

    app.delete(
      '/admin/accounts/:id/users/:user_id',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Remove a person; their sessions end at once',
          params: Type.Object({ id: Type.String({ maxLength: 36 }), user_id: Type.String({ maxLength: 36 }) }),
          response: { 204: Type.Null(), ...commonErrors(404) },
        },
      },
      async (req, reply) => {
        const person = (await c.users.list(req.params.id)).find((p) => p.id === req.params.user_id);
        await recordedChange(
          c,
          req,
          () => c.users.remove(req.params.id, req.params.user_id),
          () => ({
            actor: OPERATOR,
            scope: { accountId: req.params.id, mode: null },
            action: 'user.removed',
            target: person?.email ?? req.params.user_id,
            detail: { userId: req.params.user_id },
          }),
        );
        return reply.code(204).send(null);
      },
    );
  };
