// Who is signed in to the dashboard: a random token in an HttpOnly cookie (SameSite=Lax; Secure
// under HTTPS or an https PUBLIC_URL, see dashboard.ts), looked up server-side on every request so
// that sign-out, a removed user and inactivity end it at once. Only this cookie opens the
// dashboard: an API key never does, and /v2 never reads the cookie.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../../domain/scope.ts';
import type { UserService } from '../../services/user-service.ts';

const SESSION_COOKIE = 'ii_session';
export const COOKIE_PATH = '/dashboard';

export interface Signed {
  token: string;
  userId: string;
  email: string;
  scope: Scope;
  /** the flash holds something for the next page view */
  hasFlash: boolean;
  owner: boolean;
  language: string | null;
  timeZone: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    signed: Signed | null;
  }
}

export function setSessionCookie(reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' });
}

// Between the password and the TOTP code: who passed the password, in a signed cookie that lasts
// a few minutes. It opens nothing but the code form.
const PENDING_COOKIE = 'ii_pending';
const PENDING_MS = 5 * 60_000;

export function setPendingSecondFactor(reply: FastifyReply, user: { id: string; email: string }): void {
  const value = Buffer.from(JSON.stringify({ u: user.id, e: user.email, x: Date.now() + PENDING_MS })).toString('base64url');
  reply.setCookie(PENDING_COOKIE, value, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', signed: true, maxAge: PENDING_MS / 1000 });
}

/** The person who passed the password within the last minutes, or undefined. */
export function pendingSecondFactor(req: FastifyRequest): { userId: string; email: string } | undefined {
  const raw = req.cookies[PENDING_COOKIE];
  const unsigned = raw ? req.unsignCookie(raw) : undefined;
  if (!unsigned?.valid || !unsigned.value) return undefined;
  try {
    const { u, e, x } = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8'));
    return typeof u === 'string' && typeof e === 'string' && x > Date.now() ? { userId: u, email: e } : undefined;
  } catch {
    return undefined;
  }
}

export function clearPendingSecondFactor(reply: FastifyReply): void {
  reply.clearCookie(PENDING_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', signed: true });
}

/** onRequest: resolves the cookie to a session (or null). */
export const loadSession = (users: UserService) => async (req: FastifyRequest) => {
  req.signed = null;
  const token = req.cookies[SESSION_COOKIE];
  if (!token || token.length > 100) return;
  const s = await users.session(token);
  if (s)
    req.signed = {
      token,
      userId: s.user_id,
      email: s.email,
      scope: { accountId: s.account_id, mode: s.mode },
      hasFlash: s.has_flash,
      owner: s.role === 'owner',
      language: s.language,
      timeZone: s.time_zone,
    };
};

/** preHandler of the pages behind sign-in: a page view goes to the sign-in form, anything else gets 401. */
export async function requireSession(req: FastifyRequest, reply: FastifyReply) {
  if (req.signed) return;
  if (req.headers['hx-request']) return reply.code(401).header('hx-redirect', '/dashboard/sign-in').send();
  if (req.method === 'GET' && !req.url.startsWith('/dashboard/events')) return reply.redirect('/dashboard/sign-in', 303);
  return reply.code(401).type('text/plain').send('Sign in first');
}

/** Route options of the pages and actions behind sign-in. */
export const onlySignedIn = { preHandler: requireSession };

/** The signed-in scope (routes behind requireSession). */
export const signed = (req: FastifyRequest): Signed => req.signed!;
