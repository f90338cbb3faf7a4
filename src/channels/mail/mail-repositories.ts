// The mail channel's own bookkeeping (its claims and its replies), built once by the container
// and handed to MailIntake, MailFeedback and the periodic purge.
import { MailReplyRepository } from './mail-reply-repository.ts';
import { MessageClaimRepository } from './message-claim-repository.ts';

export interface MailRepositories {
  claims: MessageClaimRepository;
  replies: MailReplyRepository;
}

export function createMailRepositories(): MailRepositories {
  return { claims: new MessageClaimRepository(), replies: new MailReplyRepository() };
}
