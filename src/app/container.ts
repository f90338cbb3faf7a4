// The composition root: opens the database and Redis, builds every service once, and hands the
// roles (app/*-role.ts, start-service.ts) the parts each one uses.
import { JobQueues } from '../queue/job-queues.ts';
import { queuePrefix } from '../queue/job-definition.ts';
import { QUEUE_TABLES } from './job-tables.ts';
import { checkEvictionPolicy, describeRedis, openRedis, type RedisClient } from '../queue/redis-connection.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from './open-database.ts';
import { afterCommitScheduler } from './after-commit-scheduler.ts';
import { afterCommit, UnitOfWork, withUnits, type UnitDatabase } from '../db/units.ts';
import type { PdfChecker } from '../domain/document-facts.ts';
import { structureFirst } from '../formats/pdf.ts';
import { IntakeActions } from '../intake/intake-actions.ts';
import { IntakeService } from '../intake/intake-service.ts';
import { createPdfCheckPool, readTextInProcess, renderInProcess, type PdfCheckPool } from '../intake/pdf-check-pool.ts';
import { QueuedIntakeScheduler } from '../intake/intake-queue.ts';
import { IntakeReconciler } from '../intake/reconciler.ts';
import { AccountService } from '../services/account-service.ts';
import { CustomerService } from '../services/customer-service.ts';
import { DocumentService } from '../services/document-service.ts';
import { DomainEvents } from '../services/domain-events.ts';
import { IdempotencyService } from '../services/idempotency-service.ts';
import { KeyCache } from '../services/key-cache.ts';
import { UploadKeyService } from '../services/upload-key-service.ts';
import type { KeyScope } from '../domain/upload-keys.ts';
import { InvoiceService } from '../services/invoice-service.ts';
import { MaintenanceService } from '../services/maintenance-service.ts';
import { PaymentService } from '../services/payment-service.ts';
import { SshKeyService } from '../services/ssh-key-service.ts';
import { TrailService } from '../services/trail-service.ts';
import { EventOutbox } from '../services/event-outbox.ts';
import { WebhookService } from '../services/webhook-service.ts';
import { eventPresenter } from '../http/event-presenter.ts';
import { OutboxDispatcher } from '../webhooks/dispatcher.ts';
import { QueuedDeliveryScheduler } from '../webhooks/webhook-queue.ts';
import { openDocumentStore } from '../storage/open-document-store.ts';
import type { DocumentStore } from '../storage/document-store.ts';
import { DocumentSweep } from '../services/document-sweep.ts';
import { createRepositories, type Repositories } from '../repositories/repositories.ts';
import { createIntakeRepositories, type IntakeRepositories } from '../intake/intake-repositories.ts';
import { createMailRepositories, type MailRepositories } from '../channels/mail/mail-repositories.ts';
import { MailUpkeep } from '../channels/mail/mail-upkeep.ts';
import { UserService } from '../services/user-service.ts';
import { AnnouncedMemo } from '../services/announced-memo.ts';
import { WebhookSubscriptions } from '../services/webhook-subscriptions.ts';
import { MailMessageService } from '../services/mail-message-service.ts';
import { SenderPolicyService } from '../services/sender-policy-service.ts';
import { IntakeHistoryService } from '../services/intake-history-service.ts';
import { smtpInviteMailer } from '../notifications/invite-mailer.ts';
import { SignInThrottle } from '../http/dashboard/sign-in-throttle.ts';
import { connectionDetails } from './connection-details.ts';
import { secretBox } from './secret-box-key.ts';
import { Metrics } from '../ops/metrics.ts';
import { observePeriodicWork } from '../ops/periodic-metrics.ts';
import { StopSequence, type StopPhase, type Stopper } from '../ops/shutdown.ts';
import { settledBefore } from '../platform/timeouts.ts';
import type { HttpDeps } from '../http/http-deps.ts';
import type { Logger } from '../platform/logger.ts';
import { RepeatedWarnings } from '../platform/repeated-warnings.ts';
import { ApiRateLimiter } from '../http/rate-limiter.ts';
import { Announcements } from '../queue/announcements.ts';

export interface Container extends HttpDeps {
  db: UnitDatabase;
  /** every repository of the core, for the parts the roles build (workers, periodic work) */
  repos: Repositories;
  /** intake's own repositories, built beside the core's */
  intakeRepos: IntakeRepositories;
  /** the mail channel's own (claims, replies): its role and the periodic purge use them */
  mailRepos: MailRepositories;
  redis: RedisClient;
  /** where the bytes of files and documents live (DOCUMENT_STORE), rows point at them by SHA-256 */
  store: DocumentStore;
  /** removes the store's objects no row points at (the periodic documents.sweep) */
  documentSweep: DocumentSweep;
  events: DomainEvents;
  checkPdf: PdfChecker;
  /** the worker-thread pool behind checkPdf (absent when a checker was given) */
  pdfPool?: PdfCheckPool;
  maintenance: MaintenanceService;
  /** the queue module, given every queue's table (job-tables.ts): producers here, workers started by the worker role */
  jobs: JobQueues;
  /** puts back the jobs of pending files that Redis lost (periodic work) */
  reconciler: IntakeReconciler;
  /** the mail channel's purges and lost SMTP jobs (periodic work) */
  mailUpkeep: MailUpkeep;
  /** webhook events, written in the transactions of the changes they report */
  outbox: EventOutbox;
  /** what moves the outbox into the webhook queue */
  dispatcher: OutboxDispatcher;
  /** this process's Prometheus registry and the typed interfaces that update it */
  metrics: Metrics;
  /** a part to stop in an explicit phase (intake, then workers, then queues) before the closers */
  onStop(phase: StopPhase, name: string, fn: Stopper): void;
  /** closers run in reverse order of registration by close(), after the stop phases */
  onClose(fn: () => Promise<void> | void): void;
  /** stops every phase (within the grace period ending at `deadline`), closers, Redis, database */
  close(deadline?: number): Promise<void>;
}

export interface ContainerOptions {
  /** an already open database (tests); otherwise from config */
  db?: Database;
  checkPdf?: PdfChecker;
}

export async function createContainer(given: Config, log: Logger, opts: ContainerOptions = {}): Promise<Container> {
  // queries of a request inside a unit of work (an Idempotency-Key's transaction) go into it
  const db = withUnits(opts.db ?? (await openDatabase(given, log)), (err) => log.error({ err }, 'work after a commit failed'));
  const repos = createRepositories();
  const store = await openDocumentStore(given, db);
  const intakeRepos = createIntakeRepositories(store);
  const applied = await migrate(db);
  if (applied.length) log.info({ applied, database: db.kind }, 'database migrated');
  // REDIS_PREFIX, or one unique to this installation (its database); on a Redis Cluster hash-tagged
  // for every key, not only the queues', so that a command or script over two keys (the login
  // lockout's address and user) finds them in one slot
  const prefix = given.redisPrefix || `ii-${await repos.installation.id(db)}`;
  const config: Config = { ...given, redisPrefix: given.redisClusterNodes?.length ? queuePrefix({ redisPrefix: prefix }) : prefix };
  const redis = openRedis(config, { maxRetriesPerRequest: null, lazyConnect: false });
  const redisWarnings = new RepeatedWarnings(log);
  redis.on('error', (err) => redisWarnings.warn({ err: err.message }, 'redis connection error'));
  log.info({ redis: describeRedis(config), prefix: config.redisPrefix }, 'redis configured');
  void checkEvictionPolicy(redis, log);
  const events = new DomainEvents((err) => log.error({ err }, 'domain event listener failed'));
  const pdfPool = opts.checkPdf ? undefined : createPdfCheckPool(config.pdfCheckThreads, { priority: config.pdfCheckPriority });
  const pdf = opts.checkPdf ?? pdfPool!.check;
  const closers: (() => Promise<void> | void)[] = [];
  const stops = new StopSequence();
  const jobs = new JobQueues(config, redis, log, QUEUE_TABLES);
  const metrics = new Metrics({ roles: config.roles });
  for (const q of jobs.stats()) metrics.queues.watch(q);
  if (pdfPool) metrics.observePdfThreads(() => pdfPool.heaps());
  events.on('intakeStatus', (e) => metrics.intake.status(e.channel, e.status, e.receivedAt));
  observePeriodicWork(metrics.registry, () => jobs.scheduledRuns('periodic'));
  metrics.webhooks.observeBacklog(() => repos.webhookEvents.oldestUndeliveredAgeSeconds(db));
  metrics.webhooks.observeFailingEndpoints(() => repos.webhooks.failingEndpoints(db));
  const deliveries = new QueuedDeliveryScheduler(jobs);
  const dispatcher = new OutboxDispatcher(db, repos, deliveries, log.child({ part: 'webhook-dispatcher' }));
  // Its own connection fails fast when Redis is away, where the shared one (built for BullMQ)
  // would queue commands and hold requests.
  // (auto-pipelining: concurrent requests' commands share one socket write)
  const gateRedis = openRedis(config, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, enableAutoPipelining: true });
  gateRedis.on('error', () => {}); // the shared connection already logs Redis trouble
  // API keys and upload keys: one cache, one way revocations reach every node
  const keyCache = new KeyCache<KeyScope>(config.keyCacheMs);
  const subRedis = openRedis(config, { autoResubscribe: false }); // the announcements subscribe again themselves
  subRedis.on('error', () => {});
  const announcements = new Announcements(gateRedis, subRedis, config.redisPrefix);
  const rateLimiter = new ApiRateLimiter(gateRedis, config.redisPrefix, { max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });
  // which keys open which scope, which event types each scope's webhooks want, which accounts are
  // disabled: kept while this node hears every node's announcements
  announcements.listen('key-revoked', { forget: (hashes) => hashes.split(',').forEach((h) => keyCache.forget(h)), clear: () => keyCache.clear() });
  const remembered = <V>(topic: string, what: string) => {
    const memo = new AnnouncedMemo<V>(
      config.keyCacheMs,
      () => announcements.cacheTrusted(),
      (key) => announcements.announce(topic, key, what),
    );
    announcements.listen(topic, memo);
    return memo;
  };
  const subscriptions = new WebhookSubscriptions(repos, remembered('webhooks-changed', 'webhook'));
  const trail = new TrailService(db, repos, config.trailRetentionDays);
  const uploadKeys = new UploadKeyService(db, repos, { cache: keyCache, revocations: announcements }, trail);
  const accounts = new AccountService(db, repos, config.importAddress, {
    cache: keyCache,
    revocations: announcements,
    disabled: remembered('account-changed', 'account'),
    uploadKeyHashes: (id, tx) => uploadKeys.activeHashes(id, tx),
  });
  // every process that commits events queues them at once; the worker role sweeps for the rest
  const units = new UnitOfWork(db);
  const outbox = new EventOutbox({ db, units, repos, present: eventPresenter(config), subscriptions, onCommitted: () => afterCommit(() => dispatcher.soon()) });
  const senderPolicies = new SenderPolicyService(db, repos, config.mailSenderPolicyDefault, remembered('sender-policy-changed', 'sender policy'));
  const scheduler = afterCommitScheduler(new QueuedIntakeScheduler(jobs));
  const intake = new IntakeService({
    db,
    repos: intakeRepos,
    store,
    scheduler,
    outbox,
    units,
    accounts,
    log: log.child({ part: 'intake' }),
    events,
    archiveLimits: { maxEntries: config.zipMaxEntries, maxTotalBytes: config.zipMaxTotalBytes },
    report: metrics.intake,
  });
  // a document needs no e-invoice numbers: a sound structure spares it the full parse
  const documents = new DocumentService({
    db,
    repos,
    store,
    checkPdf: structureFirst(pdf),
    outbox,
    units,
    renderXml: pdfPool?.render ?? renderInProcess,
    readText: pdfPool?.text ?? readTextInProcess,
    // the staged bytes a document shares are intake's: freed by intake when the document is tombstoned
    sharedBytes: intakeRepos.documentLinks,
  });
  // a service reaches its neighbours' tables through their services, which join its transaction
  const customers = new CustomerService(db, repos);
  const invoices = new InvoiceService({ db, repos, neighbours: { customers, documents }, maxCents: config.maxAmountCents, events, outbox, units });
  // a file not woken (Redis away) still runs at its next backoff tick or by the reconciler
  events.on('invoiceCreated', (e) =>
    afterCommit(() =>
      intake.wakeWaiting(e.scope, e.invoice).catch((err) => log.warn({ err: (err as Error).message }, 'could not wake the files waiting for a new invoice')),
    ),
  );
  closers.push(() => (announcements.close(), rateLimiter.close(), gateRedis.disconnect()));
  stops.add('queues', 'queues', async () => {
    await dispatcher.idle();
    await jobs.close();
  });
  const mailRepos = createMailRepositories(store);
  const c: Container = {
    config,
    log,
    db,
    repos,
    intakeRepos,
    mailRepos,
    redis,
    store,
    documentSweep: new DocumentSweep(db, repos, store, {
      graceMs: config.documentSweepGraceHours * 3_600_000,
      fullIntervalMs: config.documentSweepFullIntervalHours * 3_600_000,
    }),
    events,
    checkPdf: pdf,
    pdfPool,
    accounts,
    sshKeys: new SshKeyService({ db, repos, accounts, trail, uploadKeys }),
    uploadKeys,
    customers,
    invoices,
    documents,
    payments: new PaymentService({ db, repos, invoices, maxCents: config.maxAmountCents, outbox, units }),
    webhooks: new WebhookService({ db, repos, outbox, scheduler: deliveries, policy: { allowPrivate: config.webhookAllowPrivate }, subscriptions }),
    idempotency: new IdempotencyService(db, repos, config.idempotencyTtlHours, {
      waitMs: config.idempotencyWaitMs,
      pauseAt: config.idempotencyPauseAt,
      onPause: (point) => log.warn({ point }, 'idempotency paused (IDEMPOTENCY_PAUSE_AT)'),
    }),
    maintenance: new MaintenanceService(db, repos, config.testDataRetentionDays, [intakeRepos.testData]),
    trail,
    jobs,
    reconciler: new IntakeReconciler(db, intakeRepos, scheduler, log.child({ part: 'reconciler' })),
    mailUpkeep: new MailUpkeep(db, mailRepos),
    outbox,
    dispatcher,
    intake,
    importActions: new IntakeActions({ db, repos: intakeRepos, scheduler, documents, invoices, outbox, events, senders: senderPolicies }),
    senderPolicies,
    connections: connectionDetails(config),
    users: new UserService({ db, repos, accounts, idleMinutes: config.dashboardIdleMinutes, box: secretBox(config) }),
    intakeHistory: new IntakeHistoryService(db, repos),
    mailMessages: new MailMessageService(db, repos),
    signInThrottle: new SignInThrottle(gateRedis, config.redisPrefix, {
      attempts: config.dashboardSignInAttempts,
      ceiling: config.dashboardSignInCeiling,
      firstDelayMs: config.dashboardSignInDelayMs,
      windowMs: config.dashboardSignInWindowMs,
    }),
    inviteMailer: config.smtpUrl ? smtpInviteMailer(config.smtpUrl, config.mailReplyFrom ?? config.importAddress) : undefined,
    rateLimiter,
    announcements,
    metrics,
    onStop: (phase, name, fn) => stops.add(phase, name, fn),
    onClose: (fn) => closers.push(fn),
    async close(deadline = Date.now() + config.shutdownGraceMs) {
      // With Redis away a worker's job cannot be marked done nor a queue closed: waiting out the
      // grace period saves nothing (its jobs go to another worker by the stalled-job check anyway)
      const redisAway = redis.status !== 'ready';
      if (redisAway) log.warn('Redis is not reachable: workers and queues stop without waiting');
      const soon = Math.min(deadline, Date.now() + 1000);
      await stops.run((phase) => (redisAway && phase !== 'intake' ? soon : deadline), log);
      for (const fn of closers.reverse()) await fn();
      await pdfPool?.close();
      // QUIT waits for replies still due; Redis down, it would wait for ever: bounded
      await settledBefore(redis.quit(), Date.now() + 1000);
      redis.disconnect();
      await store.close?.();
      if (!opts.db) await db.close();
    },
  };
  return c;
}
