// What operators see of the import mailbox: each message's outcome and reason (automatic mail is
// `ignored` with its category, docs/mail.md), across accounts.
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import { MAIL_OUTCOMES, type MailMessageView, type MailOutcome } from '../domain/mail-messages.ts';

export { MAIL_OUTCOMES };

export class MailMessageService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'mailMessages'>,
  ) {}

  list(req: PageRequest, outcome?: string): Promise<Page<MailMessageView>> {
    if (outcome !== undefined && outcome !== '' && !MAIL_OUTCOMES.includes(outcome as MailOutcome)) {
      throw DomainError.invalid(`Field outcome must be one of ${MAIL_OUTCOMES.join(', ')}`, 'outcome');
    }
    return this.repos.mailMessages.page(this.db, req, (outcome || undefined) as MailOutcome | undefined);
  }
}
