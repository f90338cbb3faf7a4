// The composition root: opens the database and Redis, builds every service once, and hands the
// roles (app/*-role.ts, start-service.ts) the parts each one uses.
import path from 'node:path';
import { JobQueues, type Queue } from '../queue/job-queues.ts';
import { queuePrefix } from '../queue/queue-catalog.ts';
import { checkEvictionPolicy, describeRedis, openRedis, type RedisClient } from '../queue/redis-connection.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openPglite } from '../db/pglite.ts';
import { afterCommit, currentUnit, withUnits, type UnitDatabase } from '../db/units.ts';
import type { IntakeScheduler } from '../intake/intake-jobs.ts';
import { structureFirst, type PdfChecker } from '../domain/pdf.ts';
import { IntakeActions } from '../intake/intake-actions.ts';
import { IntakeService } from '../intake/intake-service.ts';
import { createPdfCheckPool, readTextInProcess, renderInProcess, type PdfCheckPool } from '../intake/pdf-check-pool.ts';
import { BullIntakeScheduler } from '../intake/queue/intake-queue.ts';
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
import { BullDeliveryScheduler } from '../webhooks/webhook-queue.ts';
import { createRepositories, type Repositories } from '../repositories/repositories.ts';
import { createIntakeRepositories, type IntakeRepositories } from '../intake/intake-repositories.ts';
import { createMailRepositories, type MailRepositories } from '../channels/mail/mail-repositories.ts';
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
import { periodicSchedule } from './periodic-work.ts';
import { StopSequence, type StopPhase, type Stopper } from '../ops/shutdown.ts';
import { settledBefore, withTimeout } from '../platform/timeouts.ts';
import type { HttpDeps } from '../http/http-deps.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { Logger } from '../platform/logger.ts';
import { RepeatedWarnings } from '../platform/repeated-warnings.ts';
import { RequestGate } from '../http/request-gate.ts';

export interface Container extends HttpDeps {
  db: UnitDatabase;
  /** every repository of the core, for the parts the roles build (workers, periodic work) */
  repos: Repositories;
  /** intake's own repositories, built beside the core's */
  intakeRepos: IntakeRepositories;
  /** the mail channel's own (claims, replies): its role and the periodic purge use them */
  mailRepos: MailRepositories;
  redis: RedisClient;
  events: DomainEvents;
  checkPdf: PdfChecker;
  /** the worker-thread pool behind checkPdf (absent when a checker was given) */
  pdfPool?: PdfCheckPool;
  maintenance: MaintenanceService;
  /** every queue (intake, webhooks, mail, periodic): producers here, workers started by the worker role */
  queues: JobQueues;
  /** queues.queue('intake'), which the roles and tests reach often */
  intakeQueue: Queue;
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

export async function openDatabase(config: Config, log?: Logger): Promise<Database> {
  if (!config.databaseUrl) return openPglite(path.resolve(config.dataDir));
  // loaded only here: the embedded default does not carry pg (about 0.1 s of a start)
  const { openPostgres } = await import('../db/postgres.ts');
  return openPostgres(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    pooler: config.databasePooler,
    // a restart cuts every pooled connection: one line each, and the next query connects again
    onConnectionError: (err) => log?.warn({ err: err.message, code: (err as { code?: string }).code }, 'database connection lost'),
  });
}

export async function createContainer(given: Config, log: Logger, opts: ContainerOptions = {}): Promise<Container> {
  // queries of a request inside a unit of work (an Idempotency-Key's transaction) go into it
  const db = withUnits(opts.db ?? (await openDatabase(given, log)), (err) => log.error({ err }, 'work after a commit failed'));
  const repos = createRepositories();
  const intakeRepos = createIntakeRepositories();
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
  const pdfPool = opts.checkPdf ? undefined : createPdfCheckPool(config.pdfCheckThreads);
  const pdf = opts.checkPdf ?? pdfPool!.check;
  const closers: (() => Promise<void> | void)[] = [];
  const stops = new StopSequence();
  const queues = new JobQueues(config, redis, log);
  const intakeQueue = queues.queue('intake');
  const metrics = new Metrics({ roles: config.roles });
  for (const q of queues.all()) metrics.queues.watch(q);
  events.on('intakeStatus', (e) => metrics.intake.status(e.channel, e.status, e.receivedAt));
  observePeriodicWork(metrics.registry, () => periodicSchedule(queues, redis, config));
  metrics.webhooks.observeBacklog(() => repos.webhookEvents.oldestUndeliveredAgeSeconds(db));
  metrics.webhooks.observeFailingEndpoints(() => repos.webhooks.failingEndpoints(db));
  const deliveries = new BullDeliveryScheduler(queues.queue('webhooks'));
  const dispatcher = new OutboxDispatcher(db, repos, deliveries, log.child({ part: 'webhook-dispatcher' }));
  // Its own connection fails fast when Redis is away, where the shared one (built for BullMQ)
  // would queue commands and hold requests.
  // (auto-pipelining: concurrent requests' commands share one socket write)
  const gateRedis = openRedis(config, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, enableAutoPipelining: true });
  gateRedis.on('error', () => {}); // the shared connection already logs Redis trouble
  // API keys and upload keys: one cache, one way revocations reach every node
  const keyCache = new KeyCache<KeyScope>(config.keyCacheMs);
  const subRedis = openRedis(config, { autoResubscribe: false }); // the gate subscribes again itself
  subRedis.on('error', () => {});
  const gate = new RequestGate(gateRedis, subRedis, config.redisPrefix, { max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });
  // which keys open which scope, which event types each scope's webhooks want, which accounts are
  // disabled: kept while this node hears every node's announcements (the gate's pub/sub)
  gate.listen('key-revoked', { forget: (hashes) => hashes.split(',').forEach((h) => keyCache.forget(h)), clear: () => keyCache.clear() });
  const remembered = <V>(topic: string, what: string) => {
    const memo = new AnnouncedMemo<V>(config.keyCacheMs, () => gate.cacheTrusted(), (key) => gate.announce(topic, key, what));
    gate.listen(topic, memo);
    return memo;
  };
  const subscriptions = new WebhookSubscriptions(repos, remembered('webhooks-changed', 'webhook'));
  const trail = new TrailService(db, repos, config.trailRetentionDays);
  const uploadKeys = new UploadKeyService(db, repos, { cache: keyCache, revocations: gate }, trail);
  const accounts = new AccountService(db, repos, config.importAddress, { cache: keyCache, revocations: gate, disabled: remembered('account-changed', 'account'), uploadKeyHashes: (id, tx) => uploadKeys.activeHashes(id, tx) });
  // every process that commits events queues them at once; the worker role sweeps for the rest
  const outbox = new EventOutbox(db, repos, eventPresenter(config), subscriptions, () => afterCommit(() => dispatcher.soon()));
  const senderPolicies = new SenderPolicyService(db, repos, config.mailSenderPolicyDefault);
  const scheduler = afterCommitScheduler(new BullIntakeScheduler(intakeQueue));
  const intake = new IntakeService(db, intakeRepos, scheduler, outbox, accounts, log.child({ part: 'intake' }), events, { maxEntries: config.zipMaxEntries, maxTotalBytes: config.zipMaxTotalBytes }, metrics.intake);
  // a document needs no e-invoice numbers: a sound structure spares it the full parse
  const documents = new DocumentService(db, repos, structureFirst(pdf), outbox, pdfPool?.render ?? renderInProcess, pdfPool?.text ?? readTextInProcess);
  // a service reaches its neighbours' tables through their services, which join its transaction
  const customers = new CustomerService(db, repos);
  const invoices = new InvoiceService(db, repos, { customers, documents }, config.maxAmountCents, events, outbox);
  // a file not woken (Redis away) still runs at its next backoff tick or by the reconciler
  events.on('invoiceCreated', (e) => afterCommit(() => intake.wakeWaiting(e.scope, e.invoice).catch((err) => log.warn({ err: (err as Error).message }, 'could not wake the files waiting for a new invoice'))));
  closers.push(() => gate.close());
  stops.add('queues', 'intake queue', () => intakeQueue.close());
  stops.add('queues', 'periodic queue', () => queues.queue('periodic').close());
  stops.add('queues', 'mail queue', () => queues.queue('mail').close());
  stops.add('queues', 'webhook queue', async () => {
    await dispatcher.idle();
    await queues.queue('webhooks').close();
  });
  const c: Container = {
    config,
    log,
    db,
    repos,
    intakeRepos,
    mailRepos: createMailRepositories(),
    redis,
    events,
    checkPdf: pdf,
    pdfPool,
    accounts,
    sshKeys: new SshKeyService(db, repos, accounts),
    uploadKeys,
    customers,
    invoices,
    documents,
    payments: new PaymentService(db, repos, invoices, config.maxAmountCents, outbox),
    webhooks: new WebhookService(db, repos, outbox, deliveries, { allowPrivate: config.webhookAllowPrivate }, subscriptions),
    idempotency: new IdempotencyService(db, repos, config.idempotencyTtlHours, {
      waitMs: config.idempotencyWaitMs,
      pauseAt: config.idempotencyPauseAt,
      onPause: (point) => log.warn({ point }, 'idempotency paused (IDEMPOTENCY_PAUSE_AT)'),
    }),
    maintenance: new MaintenanceService(db, repos, config.testDataRetentionDays),
    trail,
    queues,
    intakeQueue,
    outbox,
    dispatcher,
    intake,
    importActions: new IntakeActions(db, intakeRepos, scheduler, documents, invoices, outbox, events, senderPolicies),
    senderPolicies,
    connections: connectionDetails(config),
    users: new UserService(db, repos, accounts, config.dashboardIdleMinutes, secretBox(config)),
    intakeHistory: new IntakeHistoryService(db, repos),
    mailMessages: new MailMessageService(db, repos),
    signInThrottle: new SignInThrottle(gateRedis, config.redisPrefix, { attempts: config.dashboardSignInAttempts, ceiling: config.dashboardSignInCeiling, firstDelayMs: config.dashboardSignInDelayMs, windowMs: config.dashboardSignInWindowMs }),
    inviteMailer: config.smtpUrl ? smtpInviteMailer(config.smtpUrl, config.mailReplyFrom ?? config.importAddress) : undefined,
    gate,
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
      if (!opts.db) await db.close();
    },
  };
  return c;
}

/**
 * Jobs for files staged inside a unit of work are queued once it commits (before the response
 * goes out): a worker must not take a job whose record is not visible yet. Outside a unit, at once.
 */
function afterCommitScheduler(s: IntakeScheduler): IntakeScheduler {
  const later = (fn: () => Promise<void>) => (currentUnit() ? (afterCommit(fn), Promise.resolve()) : fn());
  return {
    enqueue: (ref) => later(() => s.enqueue(ref)),
    enqueueMany: s.enqueueMany && ((refs) => later(() => s.enqueueMany!(refs))),
    restore: (ref, state) => later(() => s.restore(ref, state)),
    cancel: (id) => later(() => s.cancel(id)),
    state: (id) => s.state(id),
    promote: (id) => s.promote(id),
  };
}

/** The checks every process's /readyz runs: its database and Redis answer. Roles add their own. */
export function coreReadiness(c: Pick<Container, 'db' | 'redis'>): Map<string, ReadinessCheck> {
  return new Map<string, ReadinessCheck>([
    ['database', async () => void (await c.db.query('select 1'))],
    ['redis', async () => void (await withTimeout(c.redis.ping(), 1000))],
  ]);
}
