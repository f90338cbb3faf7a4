import { verdictInWords } from '../../domain/sender-verdict-words.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { bearerGuard } from '../plugins/admin-auth.ts';
import { parsePageRequest } from '../../domain/pagination.ts';
import { INTAKE_STATUSES } from '../../domain/intake.ts';
import { MAIL_OUTCOMES } from '../../services/mail-message-service.ts';
import { commonErrors, PageQuery } from '../schemas/common.ts';
import { adminSshKeyRoutes } from './admin-ssh-keys.ts';
import { adminUserRoutes } from './admin-users.ts';
import { adminTrailRoute } from '../resources/trail/routes.ts';
import { OPERATOR, recordedChange } from '../trail-actors.ts';

const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  ftpUsername: Type.String(),
  importAddresses: Type.Object({ live: Type.String(), test: Type.String() }),
  createdAt: Type.String(),
  disabled: Type.Boolean({
    description:
      'Disabled: its keys get 401, FTP/SFTP logins 530, files to its import addresses a failed record, its dashboard sessions end and sign-ins are refused',
  }),
});
const HostKey = Type.Object({ type: Type.String(), fingerprint: Type.String({ description: 'SHA256:..., as OpenSSH shows it' }) });
const AccountView = Type.Object({
  ...Account.properties,
  sftpHostKeys: Type.Optional(Type.Array(HostKey, { description: "the SFTP server's host keys, for users to verify" })),
});
const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);
const AdminImport = Type.Object({
  id: Type.String(),
  account: Type.String(),
  mode: Type.String({ enum: ['live', 'test'] }),
  channel: Type.String(),
  sender: Type.String(),
  filename: Type.String(),
  size: Type.Integer(),
  status: Type.String({ enum: [...INTAKE_STATUSES] }),
  invoice: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  receivedAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const NullableString = Type.Union([Type.String(), Type.Null()]);
const AdminMailMessage = Type.Object({
  id: Type.String(),
  mailbox: Type.String(),
  account: NullableString,
  mode: Type.Union([Mode, Type.Null()]),
  sender: NullableString,
  subject: NullableString,
  outcome: Type.Union([Type.String({ enum: [...MAIL_OUTCOMES] }), Type.Null()], { description: 'null while it is being processed' }),
  reason: NullableString,
  senderCheck: Type.Union([Type.String(), Type.Null()], {
    description: 'who sent it, as far as anyone checked, in words (docs/mail.md, "Who sent it"); null: the message could not be read',
  }),
  receivedAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
/** A page of an operator's list: `next` is the `from` of the following page. */
const Paged = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), next: Type.Union([Type.String(), Type.Null()]) });
const AccountId = Type.Object({ id: Type.String({ maxLength: 36 }) });
const AccountWithKeys = Type.Object({ ...Account.properties, liveKey: Type.String(), testKey: Type.String() });
const adminSecurity = [{ adminAuth: [] }];

export interface AdminRouteOptions {
  /** the SFTP host keys' fingerprints, shown with each account */
  sftpHostKeys?: { type: string; fingerprint: string }[];
}

export const adminRoutes =
  (c: HttpDeps, token: string, opts: AdminRouteOptions = {}): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.addHook('onRequest', bearerGuard(token, 'Send the admin token as Authorization: Bearer <ADMIN_TOKEN>'));
    const tags = ['admin'];
    app.get('/admin/openapi.json', { schema: { hide: true } }, async () => app.adminSwagger());

    app.post(
      '/admin/accounts',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Create an account with a live and a test key (shown once)',
          body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 250 }) }),
          response: { 201: AccountWithKeys, ...commonErrors() },
        },
      },
      async (req, reply) => reply.code(201).send(await c.accounts.create(req.body.name)),
    );

    app.get(
      '/admin/accounts',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Accounts, newest first; search by name (part), id or FTP user name',
          querystring: Type.Object({ ...PageQuery, search: Type.Optional(Type.String({ maxLength: 250 })) }),
          response: { 200: Paged(Account), ...commonErrors() },
        },
      },
      async (req) => {
        const page = await c.accounts.list(parsePageRequest(req.query), req.query.search);
        return { items: page.items, next: page.next ?? null };
      },
    );

    app.get(
      '/admin/accounts/:id',
      {
        schema: { tags, security: adminSecurity, summary: 'An account, without keys', params: AccountId, response: { 200: AccountView, ...commonErrors(404) } },
      },
      async (req) => ({ ...(await c.accounts.get(req.params.id)), sftpHostKeys: opts.sftpHostKeys }),
    );

    app.patch(
      '/admin/accounts/:id',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Disable or enable an account (at once, on every node and channel)',
          params: AccountId,
          body: Type.Object({ disabled: Type.Boolean() }),
          response: { 200: Account, ...commonErrors(404) },
        },
      },
      async (req) => {
        return recordedChange(
          c,
          req,
          async () => {
            const account = await c.accounts.setDisabled(req.params.id, req.body.disabled);
            if (req.body.disabled) await c.users.endAccountSessions(req.params.id); // its dashboard too
            return account;
          },
          () => ({
            actor: OPERATOR,
            scope: { accountId: req.params.id, mode: null },
            action: req.body.disabled ? 'account.disabled' : 'account.enabled',
            target: req.params.id,
          }),
        );
      },
    );

    app.get(
      '/admin/imports',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Import records of every account, newest first (status=failed: what needs a look, refused files included)',
          querystring: Type.Object({ ...PageQuery, status: Type.Optional(Type.String({ enum: [...INTAKE_STATUSES] })) }),
          response: { 200: Paged(AdminImport), ...commonErrors() },
        },
      },
      async (req) => {
        const page = await c.intake.listAll(parsePageRequest(req.query), req.query.status);
        return {
          items: page.items.map((r) => ({
            id: r.id,
            account: r.accountId,
            mode: r.mode,
            channel: r.channel,
            sender: r.sender,
            filename: r.filename,
            size: r.size,
            status: r.status,
            invoice: r.invoiceId,
            reason: r.reason,
            receivedAt: r.receivedAt.toISOString(),
            updatedAt: r.updatedAt.toISOString(),
          })),
          next: page.next ?? null,
        };
      },
    );

    app.get(
      '/admin/mail-messages',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary:
            "The import mailbox's messages of every account, newest first, with their outcome and reason (outcome=ignored: automatic mail such as bounces and out-of-office replies, docs/mail.md)",
          querystring: Type.Object({ ...PageQuery, outcome: Type.Optional(Type.String({ enum: [...MAIL_OUTCOMES] })) }),
          response: { 200: Paged(AdminMailMessage), ...commonErrors() },
        },
      },
      async (req) => {
        const page = await c.mailMessages.list(parsePageRequest(req.query), req.query.outcome);
        return {
          items: page.items.map((m) => ({
            id: m.id,
            mailbox: m.mailbox,
            account: m.accountId,
            mode: m.mode,
            sender: m.sender,
            subject: m.subject,
            outcome: m.outcome,
            reason: m.reason,
            senderCheck: m.senderVerdict ? verdictInWords(m.senderVerdict) : null,
            receivedAt: m.claimedAt.toISOString(),
            updatedAt: m.updatedAt.toISOString(),
          })),
          next: page.next ?? null,
        };
      },
    );

    app.post(
      '/admin/accounts/:id/keys/:mode',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Replace the live or test key; the old key stops working at once',
          params: Type.Object({ id: Type.String({ maxLength: 36 }), mode: Mode }),
          response: { 201: Type.Object({ key: Type.String() }), ...commonErrors(404) },
        },
      },
      async (req, reply) => {
        const key = await recordedChange(
          c,
          req,
          () => c.accounts.rotateKey(req.params.id, req.params.mode),
          () => ({
            actor: OPERATOR,
            scope: { accountId: req.params.id, mode: req.params.mode },
            action: 'api_key.rotated',
            target: req.params.mode,
            detail: { via: 'admin API' },
          }),
        );
        return reply.code(201).send({ key });
      },
    );

    await app.register(adminSshKeyRoutes(c));
    await app.register(adminUserRoutes(c));
    await app.register(adminTrailRoute(c));
  };
