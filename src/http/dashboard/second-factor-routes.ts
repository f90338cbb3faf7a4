// Turning the optional TOTP second factor on and off from the settings page. Setting up shows a
// new secret (QR code and text); it is kept only in the form until a code from the person's app
// proves that the app holds it. Turning it off needs a current code too.
import type { FastifyInstance } from 'fastify';
import { renderSVG } from 'uqr';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { isTotpSecret, newTotpSecret, totpUri } from '../../services/second-factor.ts';
import { settingsView } from './page-routes.ts';
import { onlySignedIn, signed } from './session.ts';

type Form = Record<string, string | undefined>;
const DONE = '/dashboard/settings?done=';

export async function secondFactorRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const setup = (email: string, secret = newTotpSecret(), error?: string) => {
    const uri = totpUri(secret, email);
    return { totpSetup: { secret, uri, qr: renderSVG(uri, { border: 2 }), error } };
  };

  app.post('/dashboard/settings/second-factor/setup', onlySignedIn, async (req, reply) =>
    reply.view('settings.eta', await settingsView(c, req, setup(signed(req).email))));

  app.post<{ Body: Form }>('/dashboard/settings/second-factor', onlySignedIn, async (req, reply) => {
    const { userId, email } = signed(req);
    const secret = req.body?.secret ?? '';
    try {
      await c.users.enableSecondFactor(userId, secret, req.body?.code ?? '');
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return reply.code(400).view('settings.eta', await settingsView(c, req, setup(email, isTotpSecret(secret) ? secret : undefined, e.detail)));
    }
    req.log.info({ userId }, 'two-step sign-in turned on');
    return reply.redirect(`${DONE}${encodeURIComponent('Two-step sign-in is on.')}#second-factor-title`, 303);
  });

  app.post<{ Body: Form }>('/dashboard/settings/second-factor/off', onlySignedIn, async (req, reply) => {
    const { userId } = signed(req);
    try {
      await c.users.disableSecondFactor(userId, req.body?.code ?? '');
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return reply.code(400).view('settings.eta', await settingsView(c, req, { error: e.detail }));
    }
    req.log.info({ userId }, 'two-step sign-in turned off');
    return reply.redirect(`${DONE}${encodeURIComponent('Two-step sign-in is off.')}#second-factor-title`, 303);
  });
}
