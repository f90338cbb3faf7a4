// Cross-site request refusal for the operator pages that act (Bull Board). A browser resends
// cached Basic credentials with any request to this host, so a form on another site could add or
// remove jobs. A state-changing request (anything but GET, HEAD, OPTIONS) is taken only when
// nothing says it came from another site (Origin, Sec-Fetch-Site) and its body, if any, is JSON:
// an HTML form cannot send application/json, and a cross-site fetch that could would need a CORS
// preflight that this server never grants. Scripts (curl with Bearer) send neither header and pass.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../api-error.ts';
import { sendError } from '../error-handler.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// 'none' is a person typing the URL or a bookmark; same-site is another origin of the same site
const TRUSTED_FETCH_SITES = new Set(['same-origin', 'none']);

const refusal = (detail: string) => new ApiError(403, detail);

/** The host[:port] of an origin as URL normalises it (default ports dropped), or undefined. */
function hostOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? `${url.protocol}//${url.host}` : undefined;
  } catch {
    return undefined;
  }
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Why the request may not act, or undefined when it may. */
function crossSiteProblem(req: FastifyRequest, publicUrl: string | undefined): string | undefined {
  if (SAFE_METHODS.has(req.method)) return undefined;
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && !TRUSTED_FETCH_SITES.has(site.toLowerCase())) return 'Actions on the queue dashboard are refused from another site';
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const own = new Set([hostOf(`${req.protocol}://${req.host}`), publicUrl ? hostOf(publicUrl) : undefined]);
    const from = hostOf(origin);
    if (!from || !own.has(from)) return 'Actions on the queue dashboard are refused from another origin';
  }
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if ((type || hasBody(req)) && type !== 'application/json') return 'Actions on the queue dashboard take a JSON body (application/json) or none';
  return undefined;
}

/** An onRequest hook: 403 in the spec's error body for a cross-site or form-encoded action. */
export function sameOriginActions(publicUrl: string | undefined) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const problem = crossSiteProblem(req, publicUrl);
    if (problem) return sendError(reply, refusal(problem));
  };
}
