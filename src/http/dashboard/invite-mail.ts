// The invite e-mail in the language it is sent in: the inviting owner's for an invite from the
// dashboard, the one the operator names (or their request's Accept-Language) for the admin API's.
import type { HttpDeps } from '../http-deps.ts';
import { INVITE_HOURS } from '../../services/user-service.ts';
import { translator, type Language } from './i18n/i18n.ts';

/** Sends the invite link; a mail failure is the caller's to log (the link is shown either way). */
export function mailInvite(mailer: NonNullable<HttpDeps['inviteMailer']>, lang: Language, to: string, url: string): Promise<void> {
  const t = translator(lang);
  return mailer.sendText(to, t('invite.mailSubject'), t('invite.mailText', { url, hours: INVITE_HOURS }));
}
