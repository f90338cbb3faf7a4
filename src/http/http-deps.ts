// What the HTTP adapter uses of the service. The composition root (app/) hands these in; HTTP code
// never sees the whole container, nor the database or Redis behind the services.
import type { Config } from '../config/config.ts';
import type { ConnectionDetails } from '../domain/models.ts';
import type { IntakeActions } from '../intake/intake-actions.ts';
import type { IntakeService } from '../intake/intake-service.ts';
import type { InviteMailer } from '../notifications/invite-mailer.ts';
import type { SignInThrottle } from './dashboard/sign-in-throttle.ts';
import type { Logger } from '../platform/logger.ts';
import type { Announcements } from '../queue/announcements.ts';
import type { ApiRateLimiter } from './rate-limiter.ts';
import type { AccountService } from '../services/account-service.ts';
import type { CustomerService } from '../services/customer-service.ts';
import type { DocumentService } from '../services/document-service.ts';
import type { IdempotencyService } from '../services/idempotency-service.ts';
import type { InvoiceService } from '../services/invoice-service.ts';
import type { DomainEvents } from '../services/domain-events.ts';
import type { PaymentService } from '../services/payment-service.ts';
import type { SshKeyService } from '../services/ssh-key-service.ts';
import type { TrailService } from '../services/trail-service.ts';
import type { UploadKeyService } from '../services/upload-key-service.ts';
import type { WebhookService } from '../services/webhook-service.ts';
import type { UserService } from '../services/user-service.ts';
import type { IntakeHistoryService } from '../services/intake-history-service.ts';
import type { MailMessageService } from '../services/mail-message-service.ts';
import type { SenderPolicyService } from '../services/sender-policy-service.ts';

export interface HttpDeps {
  config: Config;
  log: Logger;
  accounts: AccountService;
  customers: CustomerService;
  invoices: InvoiceService;
  documents: DocumentService;
  payments: PaymentService;
  idempotency: IdempotencyService;
  /** SSH public keys registered for SFTP logins (admin API) */
  sshKeys: SshKeyService;
  /** upload keys (issue 44): made by owners, open only the upload routes */
  uploadKeys: UploadKeyService;
  /** the per-key rate limit */
  rateLimiter: ApiRateLimiter;
  /** announcements between nodes: whether this node's caches hear every revocation and change */
  announcements: Announcements;
  /** the intake pipeline behind /v2/imports */
  intake: IntakeService;
  webhooks: WebhookService;
  /** retry, assign, discard a received file (POST /v2/imports/{id}/..., the dashboard) */
  importActions: IntakeActions;
  /** FTP/FTPS and SFTP connection details for GET /v2/account and the dashboard */
  connections: () => ConnectionDetails;
  /** every status an import record went through (the dashboard's history of a file) */
  intakeHistory: IntakeHistoryService;
  /** the import mailbox's messages and their outcomes, across accounts (GET /admin/mail-messages) */
  mailMessages: MailMessageService;
  /** who may send each account's mail (GET/PUT /v2/account/senders, the dashboard's settings) */
  senderPolicies: SenderPolicyService;
  /** the dashboard's people, invites and sessions */
  users: UserService;
  /** failed dashboard sign-ins per address and e-mail (Redis) */
  signInThrottle: SignInThrottle;
  /** e-mails invites when SMTP_URL is set */
  inviteMailer?: InviteMailer;
  /** who changed what outside the per-file flow (issue 44): recorded by the changes, read by owners and operators */
  trail: TrailService;
  /** in-process domain events (the dashboard's live updates listen to intakeStatus) */
  events: DomainEvents;
}
