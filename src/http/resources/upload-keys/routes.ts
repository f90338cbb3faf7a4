// Upload keys (issue 44): an owner's keys for machines that only hand in files. Made, listed and
// revoked with the API key (an upload key gets 403 here, see api-auth.ts); the key is in the
// creation's answer only. SSH public keys of an upload key: an SFTP login with one acts as the key.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { HttpDeps } from '../../http-deps.ts';
import { CreatedUploadKey, KeyId, SshKeyOfUploadKey, UploadKey } from './schema.ts';
import { HAL, Id, commonErrors, security } from '../../schemas/common.ts';
import { MAX_UPLOAD_KEY_NAME, MAX_UPLOAD_KEY_NETWORKS } from '../../../domain/upload-keys.ts';
import { Type } from '../../schemas/typebox.ts';
import { present, presentSsh } from './presenter.ts';
import { requestActor } from '../../trail-actors.ts';
import { scopeOf } from '../../request-context.ts';

/** The trail's actor of a request (the API key: upload keys never reach these routes). */
const byApiKey = (req: FastifyRequest) => ({ actor: requestActor(req), address: req.ip });

export const uploadKeyRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['upload keys'];
    app.post(
      '/v2/account/upload-keys',
      {
        schema: {
          tags,
          security,
          response: { 201: CreatedUploadKey, ...commonErrors(403) },
          summary: 'Make an upload key: it opens only POST/GET /v2/imports and the FTP/FTPS/SFTP login of this mode',
          description:
            'The key is in this answer only. With networks, it works only from those addresses (CIDR), and so may log in over plain FTP where FTP_ALLOW_PLAIN allows it: without TLS the API key and an upload key without networks are refused (530 Plain FTP takes only a network-limited upload key; use FTPS). SSH public keys registered for it (POST /v2/account/upload-keys/{key_id}/ssh-keys) log in to SFTP as it.',
          body: Type.Object({
            name: Type.String({ minLength: 1, maxLength: MAX_UPLOAD_KEY_NAME, description: 'What it is for ("Exact export job", "Ricoh 3rd floor")' }),
            networks: Type.Optional(
              Type.Array(Type.String({ maxLength: 50 }), {
                maxItems: MAX_UPLOAD_KEY_NETWORKS,
                description: 'CIDR blocks ("192.0.2.0/24", "2001:db8::/32"); a bare address is one host',
              }),
            ),
          }),
        },
      },
      async (req, reply) =>
        reply
          .code(201)
          .type(HAL)
          .send(present(await c.uploadKeys.create(scopeOf(req), byApiKey(req), req.body.name, req.body.networks))),
    );

    app.get(
      '/v2/account/upload-keys',
      {
        schema: {
          tags,
          security,
          summary: "This mode's active upload keys, oldest first (never the keys themselves)",
          response: { 200: Type.Object({ uploadKeys: Type.Array(UploadKey) }), ...commonErrors(403) },
        },
      },
      async (req, reply) => reply.type(HAL).send({ uploadKeys: (await c.uploadKeys.list(scopeOf(req))).map(present) }),
    );

    app.delete(
      '/v2/account/upload-keys/:key_id',
      {
        schema: {
          tags,
          security,
          params: Type.Object({ key_id: Id('Upload key id (upk_...)') }),
          response: { 204: Type.Null(), ...commonErrors(403, 404) },
          summary: 'Revoke an upload key: it stops working on every node within a second, open SFTP sessions included',
        },
      },
      async (req, reply) => {
        await c.uploadKeys.revoke(scopeOf(req), byApiKey(req), req.params.key_id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v2/account/upload-keys/:key_id/ssh-keys',
      {
        schema: {
          tags,
          security,
          params: KeyId,
          response: { 201: SshKeyOfUploadKey, ...commonErrors(403, 404, 409) },
          summary: "Register an SSH public key for an upload key: an SFTP login with it (the account's FTP user name) acts as the upload key",
          description:
            "Uploads only, from the upload key's networks; revoking the upload key refuses the SSH key at once (open sessions end at their next operation). ssh-ed25519, ecdsa-sha2-*, ssh-rsa signing with SHA-2. A key is registered once per account.",
          body: Type.Object({
            publicKey: Type.String({ minLength: 1, maxLength: 16_384, description: 'One line of a .pub file: "ssh-ed25519 AAAA... comment"' }),
            comment: Type.Optional(Type.String({ maxLength: 200 })),
          }),
        },
      },
      async (req, reply) =>
        reply
          .code(201)
          .type(HAL)
          .send(presentSsh(await c.sshKeys.addToUploadKey(scopeOf(req), byApiKey(req), req.params.key_id, req.body.publicKey, req.body.comment))),
    );

    app.get(
      '/v2/account/upload-keys/:key_id/ssh-keys',
      {
        schema: {
          tags,
          security,
          params: KeyId,
          summary: "An upload key's SSH public keys, newest first",
          response: { 200: Type.Object({ sshKeys: Type.Array(SshKeyOfUploadKey) }), ...commonErrors(403, 404) },
        },
      },
      async (req, reply) => reply.type(HAL).send({ sshKeys: (await c.sshKeys.ofUploadKey(scopeOf(req), req.params.key_id)).map(presentSsh) }),
    );

    app.delete(
      '/v2/account/upload-keys/:key_id/ssh-keys/:ssh_key_id',
      {
        schema: {
          tags,
          security,
          params: Type.Object({ key_id: Id('Upload key id (upk_...)'), ssh_key_id: Id('SSH key id (ssk_...)') }),
          response: { 204: Type.Null(), ...commonErrors(403, 404) },
          summary: "Remove an upload key's SSH key: its SFTP sessions end at their next operation",
        },
      },
      async (req, reply) => {
        await c.sshKeys.removeFromUploadKey(scopeOf(req), byApiKey(req), req.params.key_id, req.params.ssh_key_id);
        return reply.code(204).send(null);
      },
    );
  };
