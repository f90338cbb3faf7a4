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

type ChangeEntry = Omit<TrailEntryInput, 'actor' | 'address'> & { actor?: TrailActor };

/**
 * Makes a change the request asks for and records it, in one transaction (TrailService.recorded):
 * a change never lands without its entry, nor an entry without its change. `entry` gets the
 * change's result (undefined: nothing to record); the actor is the request's unless it names one.
 */
export function recordedChange<T>(
  c: Pick<HttpDeps, 'trail'>,
  req: FastifyRequest,
  change: () => Promise<T>,
  entry: (result: T) => ChangeEntry | undefined,
): Promise<T> {
  return c.trail.recorded(change, (result) => {
    const e = entry(result);
    return e && { ...e, actor: e.actor ?? requestActor(req), address: req.ip ?? null };
  });
}
