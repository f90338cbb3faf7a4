// The mail channel's own bookkeeping (its claims, its replies, the SMTP receiver's messages), built once by the container
// and handed to MailIntake, MailFeedback and the periodic purge.
import { MailReplyRepository } from './mail-reply-repository.ts';
import { MessageClaimRepository } from './message-claim-repository.ts';
import { SmtpMessageRepository } from './smtp-message-repository.ts';
import type { DocumentStore } from '../../storage/document-store.ts';

export interface MailRepositories {
  claims: MessageClaimRepository;
  replies: MailReplyRepository;
  /** the SMTP receiver's messages, as received */
  smtp: SmtpMessageRepository;
}

export function createMailRepositories(store: DocumentStore): MailRepositories {
  return { claims: new MessageClaimRepository(), replies: new MailReplyRepository(), smtp: new SmtpMessageRepository(store) };
}
