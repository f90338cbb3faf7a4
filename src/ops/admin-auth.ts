// The admin credentials for the operator pages (queue dashboard, intake view): the admin token as
// `Authorization: Bearer <token>` (scripts) or as the password of HTTP Basic (browsers, which
// cannot send a Bearer header to a dashboard; any user name). Compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const digest = (s: string) => createHash('sha256').update(s).digest();

export const ADMIN_REALM = 'invoice-intake admin';

/** The secret the request presents, from Bearer or from Basic's password. */
export function presentedSecret(authorization: string | undefined): string | undefined {
  const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return undefined;
  if (m[1].toLowerCase() === 'bearer') return m[2];
  const decoded = Buffer.from(m[2], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

export function secretMatches(presented: string | undefined, expected: Buffer): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), expected);
}

/** An onRequest hook: 401 with a Basic challenge (so browsers ask) unless the token is presented. */
export function operatorGuard(token: string) {
  const expected = digest(token);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (secretMatches(presentedSecret(req.headers.authorization), expected)) return;
    return reply
      .code(401)
      .header('www-authenticate', `Basic realm="${ADMIN_REALM}", charset="UTF-8"`)
      .type('application/hal+json')
      .send({ status: 401, title: 'Unauthorized', detail: 'Send the admin token as Authorization: Bearer <ADMIN_TOKEN>, or as the password of HTTP Basic' });
  };
}

/** Bearer <token> only (for /metrics and METRICS_TOKEN). */
export function bearerGuard(token: string, detail: string) {
  const expected = digest(token);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (m && secretMatches(m[1], expected)) return;
    return reply.code(401).header('www-authenticate', 'Bearer').type('application/hal+json').send({ status: 401, title: 'Unauthorized', detail });
  };
}
