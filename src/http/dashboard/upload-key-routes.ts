// An upload key's page (issue 44): its name, networks and last use, and the SSH public keys that
// log in to SFTP as it (the account's FTP user name, its rights). Everyone who sees the settings
// sees the page; only owners add and remove SSH keys (manageUploadKeys), each change in the trail.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { redirectWith, signedInPage } from './flash.ts';
import { allowed } from './roles.ts';
import { signed } from './session.ts';
import { requestActor } from '../trail-actors.ts';

type Form = Record<string, string | undefined>;
type KeyRoute = { Params: { id: string; sshId?: string }; Body: Form };
const pageOf = (id: string) => `/dashboard/settings/upload-keys/${encodeURIComponent(id)}`;

export async function uploadKeyRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const byPerson = (req: FastifyRequest) => ({ actor: requestActor(req), address: req.ip });
  const sshSection = (id: string) => `${pageOf(id)}#ssh-keys-title`;

  app.get<KeyRoute>('/dashboard/settings/upload-keys/:id', signedInPage(c.users), async (req, reply) => {
    const { scope } = signed(req);
    const key = await c.uploadKeys.get(scope, req.params.id);
    const [sshKeys, account] = await Promise.all([c.sshKeys.ofUploadKey(scope, key.id), c.accounts.get(scope.accountId)]);
    return reply.view('upload-key.eta', { title: key.name, account, key, sshKeys });
  });

  app.post<KeyRoute>('/dashboard/settings/upload-keys/:id/ssh-keys', allowed('manageUploadKeys'), async (req, reply: FastifyReply) => {
    const { id } = req.params;
    try {
      const added = await c.sshKeys.addToUploadKey(signed(req).scope, byPerson(req), id, req.body?.publicKey ?? '', req.body?.comment);
      return redirectWith(c.users, req, reply, sshSection(id), { notice: { key: 'uploadKey.sshAdded', params: { fingerprint: added.fingerprint } } });
    } catch (e) {
      if (e instanceof DomainError && (e.kind === 'invalid' || e.kind === 'conflict'))
        return redirectWith(c.users, req, reply, sshSection(id), { error: { text: e.detail } });
      throw e;
    }
  });

  app.post<KeyRoute>('/dashboard/settings/upload-keys/:id/ssh-keys/:sshId/remove', allowed('manageUploadKeys'), async (req, reply) => {
    const removed = await c.sshKeys.removeFromUploadKey(signed(req).scope, byPerson(req), req.params.id, req.params.sshId ?? '');
    return redirectWith(c.users, req, reply, sshSection(req.params.id), {
      notice: { key: 'uploadKey.sshRemoved', params: { fingerprint: removed.fingerprint } },
    });
  });
}
