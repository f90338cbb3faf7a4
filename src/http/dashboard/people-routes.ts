// The account's people, for its owners: who has access, invite a colleague (a member: the invite
// link is shown once and e-mailed when SMTP is set up), remove one (their sessions end with
// them). An owner cannot remove themselves, nor re-invite someone who has access already (that
// would reset a colleague's password into the owner's hands).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { mailInvite } from './invite-mail.ts';
import { redirectWith, takeFlash, type Flash } from './flash.ts';
import { allowed } from './roles.ts';
import { signed } from './session.ts';
import { recordedChange } from '../trail-actors.ts';

type Form = Record<string, string | undefined>;
const PAGE = '/dashboard/people';

export async function peopleRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const owners = allowed('managePeople');

  app.get(PAGE, { preHandler: [...owners.preHandler, takeFlash(c.users)] }, async (req, reply) => {
    const { scope, userId } = signed(req);
    const [people, account] = await Promise.all([c.users.list(scope.accountId), c.accounts.get(scope.accountId)]);
    const flash = (reply.locals?.flash ?? {}) as Flash;
    return reply.view('people.eta', {
      title: req.t('people.title'),
      account,
      people,
      me: userId,
      invited: flash.invited,
      mailed: !!c.inviteMailer,
      shown: flash.shown,
    });
  });

  app.post<{ Body: Form }>(PAGE, owners, async (req, reply: FastifyReply) => {
    const { scope } = signed(req);
    const email = (req.body?.email ?? '').trim();
    if ((await c.users.list(scope.accountId)).some((p) => p.email.toLowerCase() === email.toLowerCase())) {
      return redirectWith(c.users, req, reply, PAGE, { error: { key: 'people.exists', params: { email } } });
    }
    let invited;
    try {
      // an address of another account is held, answered like any other: no enumeration of other accounts' people
      invited = await recordedChange(
        c,
        req,
        () => c.users.invite(scope.accountId, email, 'member', { hold: true }),
        (u) => ({ scope: { accountId: scope.accountId, mode: null }, action: 'user.invited', target: u.email, detail: { userId: u.id, role: u.role } }),
      );
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return redirectWith(c.users, req, reply, PAGE, { error: { key: 'people.badEmail', params: { email } } });
    }
    const url = `${c.config.links.base}/dashboard/invite/${invited.token}`;
    if (c.inviteMailer)
      await mailInvite(c.inviteMailer, req.lang, invited.email, url).catch((err) =>
        req.log.warn({ err: (err as Error).message, userId: invited.id }, 'invite e-mail not sent'),
      );
    req.log.info({ userId: invited.id, by: signed(req).userId }, 'colleague invited from the dashboard');
    // the link is a secret: shown on the next view only
    return redirectWith(c.users, req, reply, PAGE, { invited: { email: invited.email, url } });
  });

  // another role for a colleague (owner or member, docs/dashboard.md "Roles"): never one's own, so
  // that an account cannot lose its last owner by a slip
  app.post<{ Params: { id: string }; Body: Form }>(`${PAGE}/:id/role`, owners, async (req, reply) => {
    const { scope, userId } = signed(req);
    if (req.params.id === userId) return redirectWith(c.users, req, reply, PAGE, { error: { key: 'people.notYourselfRole' } });
    const person = (await c.users.list(scope.accountId)).find((p) => p.id === req.params.id);
    if (!person) throw DomainError.notFound('user', req.params.id);
    let changed;
    try {
      changed = await recordedChange(
        c,
        req,
        () => c.users.setRole(scope.accountId, person.id, req.body?.role),
        (r) => ({
          scope: { accountId: scope.accountId, mode: null },
          action: 'user.role_changed',
          target: person.email,
          detail: { userId: person.id, from: r.from, to: r.to },
        }),
      );
    } catch (e) {
      if (!(e instanceof DomainError && e.kind === 'invalid')) throw e;
      return redirectWith(c.users, req, reply, PAGE, { error: { key: 'people.badRole' } });
    }
    req.log.info({ userId: person.id, by: userId, role: changed.to }, 'colleague given another role from the dashboard');
    return redirectWith(c.users, req, reply, PAGE, {
      notice: { key: 'people.roleChanged', params: { email: person.email, role: req.t(`people.${changed.to}`) } },
    });
  });

  app.post<{ Params: { id: string }; Body: Form }>(`${PAGE}/:id/remove`, owners, async (req, reply) => {
    const { scope, userId } = signed(req);
    if (req.params.id === userId) return redirectWith(c.users, req, reply, PAGE, { error: { key: 'people.notYourself' } });
    if (req.body?.confirm !== 'yes') return redirectWith(c.users, req, reply, PAGE, { error: { key: 'people.tickRemove' } });
    const person = (await c.users.list(scope.accountId)).find((p) => p.id === req.params.id);
    if (!person) throw DomainError.notFound('user', req.params.id);
    await recordedChange(
      c,
      req,
      () => c.users.remove(scope.accountId, person.id),
      () => ({ scope: { accountId: scope.accountId, mode: null }, action: 'user.removed', target: person.email, detail: { userId: person.id } }),
    );
    req.log.info({ userId: person.id, by: userId }, 'colleague removed from the dashboard');
    return redirectWith(c.users, req, reply, PAGE, { notice: { key: 'people.removed', params: { email: person.email } } });
  });
}
