// Notices on the sign-in page, after an action that ends signed out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COOKIE_PATH } from './session.ts';

// Before sign-in there is no session to hold a flash: a signed cookie names one of these notices
// (a name, never text: nothing from outside can put words on the sign-in page).
const NOTICES = { 'password-set': 'signIn.passwordSet', 'signed-out': 'signIn.signedOut', 'reset-sent': 'reset.sent' } as const;
const NOTICE_COOKIE = 'ii_notice';
export const setNotice = (reply: FastifyReply, name: keyof typeof NOTICES) =>
  reply.setCookie(NOTICE_COOKIE, name, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', signed: true, maxAge: 60 });
export function takeNotice(req: FastifyRequest, reply: FastifyReply): string | undefined {
  const raw = req.cookies[NOTICE_COOKIE];
  if (!raw) return undefined;
  reply.clearCookie(NOTICE_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', signed: true });
  const v = req.unsignCookie(raw);
  return v.valid && v.value && Object.hasOwn(NOTICES, v.value) ? req.t(NOTICES[v.value as keyof typeof NOTICES]) : undefined;
}
