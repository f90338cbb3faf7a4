// Turning the optional TOTP second factor on and off from the settings page. Setting up keeps a
// new secret in the flash for one view (QR code and text); the form carries it back until a
// code from the person's app proves that the app holds it. Turning it off needs a current code.
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { MIN_PASSWORD_LENGTH } from '../../services/passwords.ts';
import { isTotpSecret, newTotpSecret } from '../../services/second-factor.ts';
import { redirectWith } from './flash.ts';
import { onlySignedIn, signed } from './session.ts';
import { recordedChange } from '../trail-actors.ts';

type Form = Record<string, string | undefined>;
const SECTION = '/dashboard/settings#second-factor-title';

export async function secondFactorRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  // a new password: the current one proves it is the person; their other sessions end
  app.post<{ Body: Form }>('/dashboard/settings/password', onlySignedIn, async (req, reply) => {
    const { userId, token } = signed(req);
    const to = '/dashboard/settings#password-title';
    if ((req.body?.password ?? '') !== (req.body?.confirm ?? '')) return redirectWith(c.users, req, reply, to, { error: { key: 'invite.differ' } });
    try {
      await c.users.changePassword(userId, token, req.body?.current ?? '', req.body?.password ?? '');
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return redirectWith(c.users, req, reply, to, {
        error: e.field === 'current' ? { key: 'password.wrong' } : { key: 'invite.tooShort', params: { min: String(MIN_PASSWORD_LENGTH) } },
      });
    }
    req.log.info({ userId }, 'password changed from the dashboard');
    return redirectWith(c.users, req, reply, to, { notice: { key: 'password.changed' } });
  });

  app.post('/dashboard/settings/second-factor/setup', onlySignedIn, async (req, reply) =>
    redirectWith(c.users, req, reply, SECTION, { totpSetup: { secret: newTotpSecret() } }),
  );

  app.post<{ Body: Form }>('/dashboard/settings/second-factor', onlySignedIn, async (req, reply) => {
    const { userId } = signed(req);
    const secret = req.body?.secret ?? '';
    let recoveryCodes: string[];
    try {
      recoveryCodes = await recordedChange(
        c,
        req,
        () => c.users.enableSecondFactor(userId, secret, req.body?.code ?? ''),
        () => ({ scope: { accountId: signed(req).scope.accountId, mode: null }, action: 'second_factor.enabled', target: signed(req).email }),
      );
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return redirectWith(c.users, req, reply, SECTION, {
        totpSetup: { secret: isTotpSecret(secret) ? secret : newTotpSecret(), error: 'settings.codeWrong' },
      });
    }
    req.log.info({ userId }, 'two-step sign-in turned on');
    return redirectWith(c.users, req, reply, SECTION, { notice: { key: 'settings.on' }, recoveryCodes });
  });

  app.post<{ Body: Form }>('/dashboard/settings/second-factor/off', onlySignedIn, async (req, reply) => {
    const { userId } = signed(req);
    try {
      await recordedChange(
        c,
        req,
        () => c.users.disableSecondFactor(userId, req.body?.code ?? ''),
        () => ({ scope: { accountId: signed(req).scope.accountId, mode: null }, action: 'second_factor.disabled', target: signed(req).email }),
      );
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return redirectWith(c.users, req, reply, SECTION, { error: { key: 'settings.codeWrong' } });
    }
    req.log.info({ userId }, 'two-step sign-in turned off');
    return redirectWith(c.users, req, reply, SECTION, { notice: { key: 'settings.off' } });
  });
}
