// Each request's language, locale and time zone, the words and formats every template gets, and
// the two routes that change them: the language switch (kept in the person's profile; before
// sign-in in a cookie) and the time zone the page reports (kept in the session).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { isTransferChannel, type IntakeChannel } from '../../domain/channels.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import { summariseVerdict } from '../../domain/sender-verdict-words.ts';
import { formatter, isLanguage, isTimeZone, LANGUAGES, negotiate, translator, type Formatter, type Language, type Translate } from './i18n/i18n.ts';
import { reasonWords } from './reason-words.ts';
import { COOKIE_PATH } from './session.ts';

const LANG_COOKIE = 'ii_lang';

declare module 'fastify' {
  interface FastifyRequest {
    lang: Language;
    t: Translate;
    fmt: Formatter;
  }
}

/** onRequest, after the session is loaded */
export async function resolveLocale(req: FastifyRequest) {
  const chosen = req.signed?.language ?? req.cookies[LANG_COOKIE];
  const { lang, locale } = negotiate(chosen, req.headers['accept-language']);
  req.lang = lang;
  req.t = translator(lang);
  req.fmt = formatter(locale, req.signed?.timeZone ?? 'UTC');
}

/** What a sender looks like to a person: the channel and a name or address, never an internal id. */
export function senderText(t: Translate, channel: IntakeChannel, sender: string): string {
  if (channel === 'http' && sender.startsWith('api:')) return t('sender.api');
  if (channel === 'http' && sender.startsWith('dashboard:')) return t('sender.dashboard', { who: sender.slice('dashboard:'.length) });
  // FTP and SFTP record user@address: the account's own login, so the address is what tells
  const who = isTransferChannel(channel) ? sender.slice(sender.lastIndexOf('@') + 1) : sender;
  return t('sender.from', { channel: t(`channel.${channel}`), who });
}

/** Who sent an e-mail, as far as anyone checked, in the reader's words (the checks' names are the same in every language). */
function verdictText(t: Translate, v: SenderVerdict): string {
  const s = summariseVerdict(v);
  const lead = t(`verdict.${s.lead}`);
  return s.checks ? `${lead}: ${s.checks} (${t(`verdict.by.${s.by}`)})` : `${lead} (${t(`verdict.by.${s.by}`)})`;
}

/** The template data every page gets. */
export const localeLocals = (req: FastifyRequest) => ({
  t: req.t,
  fmt: req.fmt,
  escape: (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`),
  lang: req.lang,
  languages: LANGUAGES,
  sender: (channel: IntakeChannel, sender: string) => senderText(req.t, channel, sender),
  verdict: (v: SenderVerdict) => verdictText(req.t, v),
  /** an import record's (or history line's) reason in the reader's words */
  reason: (r: Parameters<typeof reasonWords>[2]) => reasonWords(req.t, req.fmt, r),
});

const safeBack = (to: unknown) => (typeof to === 'string' && /^\/dashboard(\/[\w/-]*)?$/.test(to) ? to : '/dashboard');

export async function localeRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  app.post<{ Body: Record<string, string | undefined> }>('/dashboard/language', async (req, reply: FastifyReply) => {
    const lang = req.body?.lang;
    if (isLanguage(lang)) {
      if (req.signed) await c.users.setLanguage(req.signed.userId, lang);
      reply.setCookie(LANG_COOKIE, lang, { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', maxAge: 365 * 86_400 });
    }
    return reply.redirect(safeBack(req.body?.back), 303);
  });

  // the page reports its browser's time zone once per session (assets/dashboard.js)
  app.post<{ Body: Record<string, string | undefined> }>('/dashboard/time-zone', async (req, reply) => {
    const tz = req.body?.timeZone;
    if (!req.signed) return reply.code(401).send();
    if (!isTimeZone(tz)) return reply.code(400).send({ status: 400, title: 'Bad Request', detail: 'timeZone must be an IANA time zone', field: 'timeZone' });
    await c.users.setTimeZone(req.signed.token, tz);
    return reply.code(204).send();
  });
}
