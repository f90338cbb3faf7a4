// GET /v2/account: what an account's systems need to send files (the spec's "API section"): the
// account, the key's mode, FTP/FTPS (and later SFTP) details and that mode's import address.
// Never a key: the FTP password is the key the caller already holds.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import type { Scope } from '../../domain/scope.ts';
import { MAX_SENDERS, SENDER_POLICIES, type SenderPolicy } from '../../domain/sender-policy.ts';
import { scopeOf } from '../request-context.ts';
import { commonErrors, HAL, Nullable, security } from '../schemas/common.ts';
import { recordChange } from '../trail-actors.ts';

export const AccountSchema = Type.Object(
  {
    resource: Type.Literal('account'),
    id: Type.String(),
    name: Type.String(),
    mode: Type.String({ enum: ['live', 'test'] }),
    importAddress: Type.String({ description: "This mode's personal import e-mail address" }),
    ftp: Type.Object({
      host: Type.String(),
      port: Type.Integer(),
      username: Type.String(),
      password: Type.String({ description: 'What to use as password (a description: the key of this mode, never the key itself)' }),
      tls: Type.String({ enum: ['required', 'optional', 'off'], description: 'Explicit FTPS (AUTH TLS) on the FTP port' }),
      implicitFtpsPort: Nullable(Type.Integer({ description: 'Implicit FTPS (TLS from the first byte), when offered' })),
      certificateSha256: Nullable(Type.String({ description: 'SHA-256 fingerprint of the FTPS certificate, AA:BB:...' })),
    }),
    sftp: Type.Object({
      host: Type.String(),
      port: Type.Integer(),
      username: Type.String({ description: 'The same user as FTP' }),
      password: Type.String({ description: 'What to use as password (the key of this mode), or a registered SSH key' }),
      hostKeys: Type.Array(Type.Object({ type: Type.String(), fingerprint: Type.String({ description: 'SHA256:... as OpenSSH shows it' }) })),
    }),
  },
  { $id: 'Account' },
);

/** The account's connection view for this scope; `requestHost` names the host when none is configured. */
export async function accountDetails(c: HttpDeps, scope: Scope, requestHost: string) {
  const account = await c.accounts.get(scope.accountId);
  const { ftp, sftp } = c.connections();
  return {
    resource: 'account' as const,
    id: account.id,
    name: account.name,
    mode: scope.mode,
    importAddress: account.importAddresses[scope.mode],
    ftp: {
      host: ftp.host ?? requestHost,
      port: ftp.port,
      username: account.ftpUsername,
      password: `Your ${scope.mode} API key`,
      tls: ftp.tlsRequired ? 'required' : ftp.tls ? 'optional' : 'off',
      implicitFtpsPort: ftp.implicitFtpsPort,
      certificateSha256: ftp.certificateSha256,
    },
    sftp: {
      host: sftp.host ?? requestHost,
      port: sftp.port,
      username: account.ftpUsername,
      password: `Your ${scope.mode} API key, or an SSH key registered for ${scope.mode} mode`,
      hostKeys: sftp.hostKeys,
    },
  };
}

export const hostName = (req: FastifyRequest) => req.hostname;

export const accountRoutes = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/v2/account', {
    schema: { tags: ['account'], security, summary: "The key's account and mode, FTP/FTPS connection details and import address (never a key)", response: { 200: AccountSchema, ...commonErrors() } },
  }, async (req, reply) => reply.type(HAL).send(await accountDetails(c, scopeOf(req), hostName(req))));

  const senders = { tags: ['account'], security };
  app.get('/v2/account/senders', {
    schema: { ...senders, summary: "Who may send this mode's e-mail: anyone, or listed senders only (docs/mail.md, \"Who may send\")", response: { 200: SendersSchema, ...commonErrors() } },
  }, async (req, reply) => reply.type(HAL).send(presentSenders(await c.senderPolicies.get(scopeOf(req)))));

  app.put('/v2/account/senders', {
    schema: {
      ...senders, body: SendersBody, response: { 200: SendersSchema, ...commonErrors() },
      summary: "Set who may send this mode's e-mail",
      description: 'policy anyone: every sender (as before); listed: only the addresses and domains in senders, and only when the mail is authenticated for its From (DMARC pass, or SPF or DKIM aligned). Files from anyone else are held (status held) until an owner releases (POST /v2/imports/{id}/release) or discards them. 400 with field policy or senders for anything else.',
    },
  }, async (req, reply) => {
    const policy = await c.senderPolicies.set(scopeOf(req), req.body);
    await recordChange(c, req, { scope: scopeOf(req), action: 'senders.changed', detail: { policy: policy.policy, senders: policy.senders } });
    return reply.type(HAL).send(presentSenders(policy));
  });
};

const SendersSchema = Type.Object({
  resource: Type.Literal('senders'),
  policy: Type.String({ enum: [...SENDER_POLICIES] }),
  senders: Type.Array(Type.String(), { description: 'Addresses (a@b.example) and domains (@b.example), lower-cased and sorted' }),
}, { $id: 'Senders' });
const SendersBody = Type.Object({
  policy: Type.String({ enum: [...SENDER_POLICIES], description: 'anyone or listed' }),
  senders: Type.Optional(Type.Array(Type.String({ maxLength: 254 }), { maxItems: MAX_SENDERS, description: 'Addresses (a@b.example) and domains (@b.example); replaces the list' })),
});
const presentSenders = (p: SenderPolicy) => ({ resource: 'senders' as const, policy: p.policy, senders: p.senders });
