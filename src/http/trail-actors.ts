// Who made a change, as the trail records it (issue 44): the signed-in person, the API key of the
// request's mode, or the operator (admin API and CLI); and from which address (after TRUST_PROXY).
import type { FastifyRequest } from 'fastify';
import type { TrailActor, TrailEntryInput } from '../domain/trail.ts';
import type { KeyScope } from '../domain/upload-keys.ts';
import type { HttpDeps } from './http-deps.ts';

export const OPERATOR: TrailActor = { kind: 'operator', id: null, label: 'operator' };

export function requestActor(req: FastifyRequest): TrailActor {
  if (req.signed) return { kind: 'person', id: req.signed.userId, label: req.signed.email };
  const key = (req.scope as KeyScope | null)?.uploadKey;
  if (key) return { kind: 'upload_key', id: key.id, label: key.name };
  if (req.scope) return { kind: 'api_key', id: null, label: `API key (${req.scope.mode})` };
  return OPERATOR;
}

/** Records a change the request made, after it succeeded. */
export async function recordChange(c: Pick<HttpDeps, 'trail'>, req: FastifyRequest, entry: Omit<TrailEntryInput, 'actor' | 'address'> & { actor?: TrailActor }): Promise<void> {
  await c.trail.record({ ...entry, actor: entry.actor ?? requestActor(req), address: req.ip ?? null });
}
