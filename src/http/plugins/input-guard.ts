// Text that PostgreSQL cannot store (a NUL character) is bad input, not a database error: refuse it
// as a 400 naming the field before any route sees it, in the path, the query or the body.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api-error.ts';

// Every request passes here: the walk allocates nothing (no entries arrays, no list of parts).
function findNul(value: unknown, name: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? name : undefined;
  if (!value || typeof value !== 'object' || depth > 4) return undefined;
  const array = Array.isArray(value);
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (k.includes('\u0000')) return k.replace(/\u0000/g, '');
    const hit = findNul((value as Record<string, unknown>)[k], array ? name : k, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (req, _reply, done) => {
    const field = findNul(req.params, '') ?? findNul(req.query, '') ?? findNul(req.body, '');
    if (field !== undefined) return done(field ? ApiError.wrongFormat(field) : ApiError.badRequest('The request contains a NUL character'));
    done();
  });
}
