// Sign-in (throttled per address and per e-mail through Redis; a TOTP code as second step for a
// person who turned it on), sign-out, and the invite link where a person sets their password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { MIN_PASSWORD_LENGTH } from '../../services/passwords.ts';
import { setNotice, takeNotice } from './notices.ts';
import { clearPendingSecondFactor, clearSessionCookie, pendingSecondFactor, setPendingSecondFactor, setSessionCookie } from './session.ts';

type Form = Record<string, string | undefined>;
const field = (body: unknown, name: string) => {
  const v = (body as Form | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

const expired = (req: FastifyRequest) => ({ title: req.t('invite.expiredTitle'), message: req.t('invite.expired') });
/** a held invite (its address signs in to another account: docs/dashboard.md), or the expired page */
const unusable = async (c: HttpDeps, req: FastifyRequest, reply: FastifyReply, token: string) =>
  (await c.users.isHeldInvite(token))
    ? reply.code(409).view('message.eta', { title: req.t('invite.heldTitle'), message: req.t('invite.held') })
    : reply.code(410).view('message.eta', expired(req));

export async function authRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const signInPage = (req: FastifyRequest, error?: string, email = '') => ({ title: req.t('signIn.title'), error: error && req.t(error), email });
  const codePage = (req: FastifyRequest, error?: string) => ({ title: req.t('signIn.title'), error: error && req.t(error) });

  /** Seconds until the address and the e-mail may try again (0: now), and the words for it. */
  const throttle = async (req: FastifyRequest, email: string) => {
    const waitMs = await c.signInThrottle.blockedFor(req.ip, email);
    const minutes = Math.ceil(waitMs / 60_000);
    return { seconds: Math.ceil(waitMs / 1000), error: req.t('signIn.tooMany', { count: minutes }) };
  };
  const signedIn = async (req: FastifyRequest, reply: FastifyReply, user: { id: string; email: string }) => {
    let token: string;
    try {
      token = await c.users.startSession(user.id);
    } catch (e) {
      // the right password (and code) of a disabled account's person: said plainly, nothing opened
      if (e instanceof DomainError && e.kind === 'unauthorized') return reply.code(403).view('sign-in.eta', signInPage(req, 'signIn.disabled', user.email));
      throw e;
    }
    await c.signInThrottle.recordSuccess(req.ip, user.email);
    if (req.signed) await c.users.endSession(req.signed.token);
    setSessionCookie(reply, token);
    return reply.redirect('/dashboard', 303);
  };

  app.get('/dashboard/sign-in', async (req, reply) => {
    if (req.signed) return reply.redirect('/dashboard', 303);
    return reply.view('sign-in.eta', { ...signInPage(req), notice: takeNotice(req, reply) });
  });

  app.post('/dashboard/sign-in', async (req, reply) => {
    const email = field(req.body, 'email').trim();
    const password = field(req.body, 'password');
    const wait = await throttle(req, email);
    if (wait.seconds)
      return reply
        .code(429)
        .header('retry-after', String(wait.seconds))
        .view('sign-in.eta', { ...signInPage(req, undefined, email), error: wait.error });
    const user = email && password ? await c.users.verify(email, password) : undefined;
    if (!user) {
      await c.signInThrottle.recordFailure(req.ip, email);
      return reply.code(401).view('sign-in.eta', signInPage(req, 'signIn.wrong', email));
    }
    if (!user.secondFactor) return signedIn(req, reply, user);
    setPendingSecondFactor(reply, user);
    return reply.redirect('/dashboard/sign-in/code', 303);
  });

  app.get('/dashboard/sign-in/code', async (req, reply) => {
    if (req.signed) return reply.redirect('/dashboard', 303);
    if (!pendingSecondFactor(req)) return reply.redirect('/dashboard/sign-in', 303);
    return reply.view('sign-in-code.eta', codePage(req));
  });

  // the second step for a person with TOTP on: failures count like wrong passwords
  app.post('/dashboard/sign-in/code', async (req, reply) => {
    const pending = pendingSecondFactor(req);
    if (!pending) return reply.code(401).view('sign-in.eta', signInPage(req, 'signIn.tooLong'));
    const wait = await throttle(req, pending.email);
    if (wait.seconds)
      return reply
        .code(429)
        .header('retry-after', String(wait.seconds))
        .view('sign-in-code.eta', { ...codePage(req), error: wait.error });
    const code = field(req.body, 'code');
    if (!(await c.users.checkSecondFactor(pending.userId, code)) && !(await c.users.useRecoveryCode(pending.userId, code))) {
      await c.signInThrottle.recordFailure(req.ip, pending.email);
      return reply.code(401).view('sign-in-code.eta', codePage(req, 'signIn.wrongCode'));
    }
    clearPendingSecondFactor(reply);
    return signedIn(req, reply, { id: pending.userId, email: pending.email });
  });

  app.post('/dashboard/sign-out', async (req, reply) => {
    if (req.signed) await c.users.endSession(req.signed.token);
    clearSessionCookie(reply);
    setNotice(reply, 'signed-out');
    return reply.redirect('/dashboard/sign-in', 303);
  });

  app.get<{ Params: { token: string } }>('/dashboard/invite/:token', async (req, reply) => {
    const email = await c.users.inviteEmail(req.params.token);
    if (!email) return unusable(c, req, reply, req.params.token);
    return reply.view('invite.eta', { title: req.t('invite.title'), email, min: MIN_PASSWORD_LENGTH });
  });

  app.post<{ Params: { token: string } }>('/dashboard/invite/:token', async (req, reply) => {
    const password = field(req.body, 'password');
    const email = await c.users.inviteEmail(req.params.token);
    if (!email) return unusable(c, req, reply, req.params.token);
    if (password !== field(req.body, 'confirm')) {
      return reply.code(400).view('invite.eta', { title: req.t('invite.title'), email, min: MIN_PASSWORD_LENGTH, error: req.t('invite.differ') });
    }
    try {
      await c.users.acceptInvite(req.params.token, password);
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'invalid')
        return reply
          .code(400)
          .view('invite.eta', { title: req.t('invite.title'), email, min: MIN_PASSWORD_LENGTH, error: req.t('invite.tooShort', { min: MIN_PASSWORD_LENGTH }) });
      throw e;
    }
    // this browser now belongs to the person who set the password: whoever was signed in here is signed out
    if (req.signed) await c.users.endSession(req.signed.token);
    clearSessionCookie(reply);
    setNotice(reply, 'password-set');
    return reply.redirect('/dashboard/sign-in', 303);
  });
}
