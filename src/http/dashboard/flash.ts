// The flash: what the page after a form shows once. Forms answer 303 (post/redirect/get); the
// message or the secret they produced waits in the session row (server-side, never in the
// address or a cookie) and the next page view takes it. A secret (a new API key, a TOTP key
// being set up) is shown on that one view; a reload finds only a note that it was shown.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserService } from '../../services/user-service.ts';
import { requireSession, signed } from './session.ts';

/** words by their key in i18n/en.ts (with parameters), or a service's own text */
type FlashMessage = { key: string; params?: Record<string, string> } | { text: string };

export interface Flash {
  notice?: FlashMessage;
  error?: FlashMessage;
  newKey?: { mode: 'live' | 'test'; key: string };
  /** an upload key just made (issue 44): shown on the next view only */
  newUploadKey?: { name: string; key: string };
  totpSetup?: { secret: string; error?: string };
  /** a colleague's invite link, right after the invite */
  invited?: { email: string; url: string };
  /** ten recovery codes, right after two-step sign-in was turned on */
  recoveryCodes?: string[];
  /** the previous view showed a secret; this one says so instead */
  shown?: 'key' | 'totp' | 'codes' | 'invite';
}

/** Keeps `flash` for the session's next page view and answers 303 to `to`. */
export async function redirectWith(users: UserService, req: FastifyRequest, reply: FastifyReply, to: string, flash: Flash) {
  await users.addFlash(signed(req).token, flash as Record<string, unknown>);
  return reply.redirect(to, 303);
}

/** preHandler of full page views: takes the flash into the layout's data. */
export const takeFlash = (users: UserService) => async (req: FastifyRequest, reply: FastifyReply) => {
  if (!req.signed?.hasFlash || req.headers['hx-request']) return;
  const flash = ((await users.takeFlash(req.signed.token)) ?? {}) as Flash;
  const shown = flash.newKey || flash.newUploadKey ? 'key' : flash.totpSetup ? 'totp' : flash.recoveryCodes ? 'codes' : flash.invited ? 'invite' : undefined;
  if (shown) await users.addFlash(req.signed.token, { shown });
  reply.locals = { ...reply.locals, flash };
};

/** Route options of pages behind sign-in that show the flash. */
export const signedInPage = (users: UserService) => ({ preHandler: [requireSession, takeFlash(users)] });
