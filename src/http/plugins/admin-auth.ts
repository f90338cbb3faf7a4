// The one reader of the Authorization header, and the guards of the operator's routes: the admin
// API and /metrics take `Bearer <token>`; the operator pages (queue dashboard, intake view) also
// take the token as the password of HTTP Basic (browsers cannot send a Bearer header to a page;
// any user name). Secrets are compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../api-error.ts';
import { sendError } from '../error-handler.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

const ADMIN_REALM = 'invoice-intake admin';

const AUTHORIZATION = /^(Bearer|Basic)\s+(\S+)\s*$/i;

/** The token of `Authorization: Bearer <token>`. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const m = AUTHORIZATION.exec(authorization ?? '');
  return m && m[1].toLowerCase() === 'bearer' ? m[2] : undefined;
}

/** The secret the request presents, from Bearer or from Basic's password. */
function presentedSecret(authorization: string | undefined): string | undefined {
  const m = AUTHORIZATION.exec(authorization ?? '');
  if (!m) return undefined;
  if (m[1].toLowerCase() === 'bearer') return m[2];
  const decoded = Buffer.from(m[2], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

function secretMatches(presented: string | undefined, expected: Buffer): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), expected);
}

/** An onRequest hook: 401 with a Basic challenge (so browsers ask) unless the token is presented. */
export function operatorGuard(token: string) {
  const expected = digest(token);
  const refusal = new ApiError(401, 'Send the admin token as Authorization: Bearer <ADMIN_TOKEN>, or as the password of HTTP Basic', undefined, {
    'www-authenticate': `Basic realm="${ADMIN_REALM}", charset="UTF-8"`,
  });
  // answered here, not thrown: Bull Board's routes have an error handler of their own
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!secretMatches(presentedSecret(req.headers.authorization), expected)) return sendError(reply, refusal);
  };
}

/** An onRequest hook: 401 unless `Bearer <token>` is presented (the admin API, /metrics). */
export function bearerGuard(token: string, detail: string) {
  const expected = digest(token);
  return async (req: FastifyRequest) => {
    if (!secretMatches(bearerToken(req.headers.authorization), expected)) throw ApiError.unauthorized(detail);
  };
}
