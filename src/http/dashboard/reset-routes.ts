// "Forgot your password?": with SMTP set up, the sign-in page's link asks for the e-mail address
// and sends a one-hour reset link in the person's language (every answer is the same, known
// address or not, so the page tells nobody who has access; asking counts against the sign-in
// throttle). The link sets a new password and keeps two-step sign-in. Without SMTP the page says
// that the operator resets it (`npm run admin -- invite <account-id> <email>`).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { MIN_PASSWORD_LENGTH } from '../../services/passwords.ts';
import { RESET_MINUTES } from '../../services/user-service.ts';
import { isLanguage, translator } from './i18n/i18n.ts';
import { setNotice } from './notices.ts';

type Form = Record<string, string | undefined>;

export async function resetRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const page = (req: FastifyRequest, extra: Record<string, unknown> = {}) => ({ title: req.t('reset.title'), mail: !!c.inviteMailer, ...extra });

  app.get('/dashboard/reset', async (req, reply) => reply.view('reset.eta', page(req)));

  app.post<{ Body: Form }>('/dashboard/reset', async (req, reply) => {
    const email = (req.body?.email ?? '').trim().slice(0, 254);
    if (!c.inviteMailer) return reply.redirect('/dashboard/reset', 303);
    const waitMs = await c.signInThrottle.blockedFor(req.ip, email);
    if (waitMs)
      return reply
        .code(429)
        .header('retry-after', String(Math.ceil(waitMs / 1000)))
        .view('reset.eta', page(req, { error: req.t('signIn.tooMany', { count: Math.ceil(waitMs / 60_000) }) }));
    await c.signInThrottle.recordFailure(req.ip, email); // asking is not free: it counts like a wrong password
    const reset = await c.users.requestReset(email);
    if (reset) {
      const t = translator(isLanguage(reset.language) ? reset.language : req.lang);
      const url = `${c.config.links.base}/dashboard/reset/${reset.token}`;
      await c.inviteMailer
        .sendText(reset.email, t('reset.mailSubject'), t('reset.mailText', { url, minutes: RESET_MINUTES }))
        .catch((err) => req.log.warn({ err: (err as Error).message }, 'reset e-mail not sent'));
    }
    setNotice(reply, 'reset-sent');
    return reply.redirect('/dashboard/sign-in', 303);
  });

  app.get<{ Params: { token: string } }>('/dashboard/reset/:token', async (req, reply) => {
    const email = await c.users.resetEmail(req.params.token);
    if (!email) return reply.code(410).view('message.eta', { title: req.t('reset.expiredTitle'), message: req.t('reset.expired') });
    return reply.view('invite.eta', { title: req.t('reset.newTitle'), email, min: MIN_PASSWORD_LENGTH });
  });

  app.post<{ Params: { token: string }; Body: Form }>('/dashboard/reset/:token', async (req, reply) => {
    const email = await c.users.resetEmail(req.params.token);
    if (!email) return reply.code(410).view('message.eta', { title: req.t('reset.expiredTitle'), message: req.t('reset.expired') });
    const form = { title: req.t('reset.newTitle'), email, min: MIN_PASSWORD_LENGTH };
    if ((req.body?.password ?? '') !== (req.body?.confirm ?? '')) return reply.code(400).view('invite.eta', { ...form, error: req.t('invite.differ') });
    try {
      await c.users.acceptReset(req.params.token, req.body?.password ?? '');
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'invalid')
        return reply.code(400).view('invite.eta', { ...form, error: req.t('invite.tooShort', { min: MIN_PASSWORD_LENGTH }) });
      throw e;
    }
    setNotice(reply, 'password-set');
    return reply.redirect('/dashboard/sign-in', 303);
  });
}
