// An account's SSH public keys for SFTP logins: register one for a mode, list them, remove one
// (its SFTP sessions end at their next operation).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { commonErrors } from '../schemas/common.ts';

const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);
const SshKey = Type.Object({
  id: Type.String(),
  mode: Mode,
  type: Type.String(),
  fingerprint: Type.String(),
  comment: Type.String(),
  uploadKey: Type.Union([Type.String(), Type.Null()], {
    description: "The upload key it belongs to (its logins act as that key); null: the account's key of its mode",
  }),
  createdAt: Type.String(),
});
const adminSecurity = [{ adminAuth: [] }];

export const adminSshKeyRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['admin'];
    app.post(
      '/admin/accounts/:id/ssh-keys/:mode',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Register an SSH public key for SFTP logins in live or test mode (ssh-ed25519, ecdsa-sha2-*, ssh-rsa signing with SHA-2)',
          params: Type.Object({ id: Type.String({ maxLength: 36 }), mode: Mode }),
          body: Type.Object({ publicKey: Type.String({ minLength: 1, maxLength: 16_384 }), comment: Type.Optional(Type.String({ maxLength: 200 })) }),
          response: { 201: SshKey, ...commonErrors(404, 409) },
        },
      },
      async (req, reply) => reply.code(201).send(await c.sshKeys.add(req.params.id, req.params.mode, req.body.publicKey, req.body.comment)),
    );

    app.get(
      '/admin/accounts/:id/ssh-keys',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'The SSH public keys registered for the account',
          params: Type.Object({ id: Type.String({ maxLength: 36 }) }),
          response: { 200: Type.Object({ sshKeys: Type.Array(SshKey) }), ...commonErrors(404) },
        },
      },
      async (req) => ({ sshKeys: await c.sshKeys.list(req.params.id) }),
    );

    app.delete(
      '/admin/accounts/:id/ssh-keys/:keyId',
      {
        schema: {
          tags,
          security: adminSecurity,
          summary: 'Remove an SSH key; its SFTP sessions end at their next operation',
          params: Type.Object({ id: Type.String({ maxLength: 36 }), keyId: Type.String({ maxLength: 36 }) }),
          response: { 204: Type.Null(), ...commonErrors(404) },
        },
      },
      async (req, reply) => {
        await c.sshKeys.remove(req.params.id, req.params.keyId);
        return reply.code(204).send(null);
      },
    );
  };
