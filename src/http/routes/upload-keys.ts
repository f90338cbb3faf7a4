// Upload keys (issue 44): an owner's keys for machines that only hand in files. Made, listed and
// revoked with the API key (an upload key gets 403 here, see api-auth.ts); the key is in the
// creation's answer only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { requestActor } from '../trail-actors.ts';
import { MAX_UPLOAD_KEY_NAME, MAX_UPLOAD_KEY_NETWORKS, type UploadKeyView } from '../../domain/upload-keys.ts';
import { scopeOf } from '../request-context.ts';
import { commonErrors, HAL, Id, Nullable, security } from '../schemas/common.ts';

const Time = Type.String({ format: 'date-time' });
const fields = {
  resource: Type.Literal('upload-key'),
  id: Type.String(),
  mode: Type.String({ enum: ['live', 'test'] }),
  name: Type.String(),
  hint: Type.String({ description: 'The prefix and the first and last 4 characters: enough to tell keys apart, never the key' }),
  networks: Type.Array(Type.String(), { description: 'CIDR blocks the key may be used from; empty: anywhere' }),
  createdAt: Time,
  lastUsed: Nullable(Type.Object({ at: Time, address: Nullable(Type.String()), channel: Nullable(Type.String({ enum: ['http', 'ftp', 'sftp'] })) }, { description: 'When, from which address and over which channel it was last used (written at most once a minute per address and channel)' })),
};
const UploadKey = Type.Object(fields, { $id: 'UploadKey' });
const CreatedUploadKey = Type.Object({ ...fields, key: Type.String({ description: 'The key itself (live_up_... or test_up_...): shown in this answer only, stored hashed' }) });

/** The trail's actor of a request (the API key: upload keys never reach these routes). */
const byApiKey = (req: FastifyRequest) => ({ actor: requestActor(req), address: req.ip });

const present = <K extends UploadKeyView>(k: K) => ({ resource: 'upload-key' as const, ...k });

export const uploadKeyRoutes = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const tags = ['upload keys'];
  app.post('/v2/account/upload-keys', {
    schema: {
      tags, security, response: { 201: CreatedUploadKey, ...commonErrors(403) },
      summary: 'Make an upload key: it opens only POST/GET /v2/imports and the FTP/FTPS/SFTP login of this mode',
      description: 'The key is in this answer only. With networks, it works only from those addresses (CIDR), and so may log in over plain FTP where FTP_ALLOW_PLAIN allows it.',
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: MAX_UPLOAD_KEY_NAME, description: 'What it is for ("Exact export job", "Ricoh 3rd floor")' }),
        networks: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: MAX_UPLOAD_KEY_NETWORKS, description: 'CIDR blocks ("192.0.2.0/24", "2001:db8::/32"); a bare address is one host' })),
      }),
    },
  }, async (req, reply) => reply.code(201).type(HAL).send(present(await c.uploadKeys.create(scopeOf(req), byApiKey(req), req.body.name, req.body.networks))));

  app.get('/v2/account/upload-keys', {
    schema: { tags, security, summary: "This mode's active upload keys, oldest first (never the keys themselves)", response: { 200: Type.Object({ uploadKeys: Type.Array(UploadKey) }), ...commonErrors(403) } },
  }, async (req, reply) => reply.type(HAL).send({ uploadKeys: (await c.uploadKeys.list(scopeOf(req))).map(present) }));

  app.delete('/v2/account/upload-keys/:key_id', {
    schema: {
      tags, security, params: Type.Object({ key_id: Id('Upload key id (upk_...)') }), response: { 204: Type.Null(), ...commonErrors(403, 404) },
      summary: 'Revoke an upload key: it stops working on every node within a second, open SFTP sessions included',
    },
  }, async (req, reply) => {
    await c.uploadKeys.revoke(scopeOf(req), byApiKey(req), req.params.key_id);
    return reply.code(204).send(null);
  });
};
