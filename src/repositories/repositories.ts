// Every repository of the core, built once by the container (app/container.ts) and handed to the
// services. A service names its own (Pick<Repositories, ...>; test/unit/service-repositories.test.ts
// says which are whose): that is all it can reach, and all a test must hand it. Statements take their Queryable per call, so that a service runs
// them inside its transaction or the request's unit of work (db/units.ts).
import { AccountRepository } from './account-repository.ts';
import { CustomerRepository } from './customer-repository.ts';
import { DocumentRepository } from './document-repository.ts';
import { IdempotencyRepository } from './idempotency-repository.ts';
import { InstallationRepository } from './installation-repository.ts';
import { IntakeHistoryRepository } from './intake-history-repository.ts';
import { InvoiceRepository } from './invoice-repository.ts';
import { MailMessageViewRepository } from './mail-message-view.ts';
import { MaintenanceRepository } from './maintenance-repository.ts';
import { ObjectReferenceRepository } from './object-reference-repository.ts';
import { PaymentRepository } from './payment-repository.ts';
import { SenderPolicyRepository } from './sender-policy-repository.ts';
import { SshKeyRepository } from './ssh-key-repository.ts';
import { TrailRepository } from './trail-repository.ts';
import { UploadKeyRepository } from './upload-key-repository.ts';
import { UserRepository } from './user-repository.ts';
import { WebhookEventRepository } from './webhook-event-repository.ts';
import { WebhookRepository } from './webhook-repository.ts';

export interface Repositories {
  accounts: AccountRepository;
  customers: CustomerRepository;
  documents: DocumentRepository;
  idempotencyKeys: IdempotencyRepository;
  installation: InstallationRepository;
  intakeHistory: IntakeHistoryRepository;
  invoices: InvoiceRepository;
  mailMessages: MailMessageViewRepository;
  maintenance: MaintenanceRepository;
  /** which document-store objects rows point at (the sweep's question) */
  objects: ObjectReferenceRepository;
  payments: PaymentRepository;
  senderPolicies: SenderPolicyRepository;
  sshKeys: SshKeyRepository;
  trail: TrailRepository;
  uploadKeys: UploadKeyRepository;
  users: UserRepository;
  webhookEvents: WebhookEventRepository;
  webhooks: WebhookRepository;
}

export function createRepositories(): Repositories {
  return {
    accounts: new AccountRepository(),
    customers: new CustomerRepository(),
    documents: new DocumentRepository(),
    idempotencyKeys: new IdempotencyRepository(),
    installation: new InstallationRepository(),
    intakeHistory: new IntakeHistoryRepository(),
    invoices: new InvoiceRepository(),
    mailMessages: new MailMessageViewRepository(),
    maintenance: new MaintenanceRepository(),
    objects: new ObjectReferenceRepository(),
    payments: new PaymentRepository(),
    senderPolicies: new SenderPolicyRepository(),
    sshKeys: new SshKeyRepository(),
    trail: new TrailRepository(),
    uploadKeys: new UploadKeyRepository(),
    users: new UserRepository(),
    webhookEvents: new WebhookEventRepository(),
    webhooks: new WebhookRepository(),
  };
}
