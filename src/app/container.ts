// The composition root: builds the database, Redis, repositories' users (services) once,
// and hands them to the roles. Nothing else constructs services.
import path from 'node:path';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openPglite } from '../db/pglite.ts';
import { openPostgres } from '../db/postgres.ts';
import type { PdfChecker } from '../domain/pdf.ts';
import { IntakeService } from '../intake/intake-service.ts';
import { createPdfCheckPool, type PdfCheckPool } from '../intake/pdf-check-pool.ts';
import { BullIntakeScheduler, createIntakeQueue } from '../intake/queue/intake-queue.ts';
import { AccountService } from '../services/account-service.ts';
import { CustomerService } from '../services/customer-service.ts';
import { DocumentService } from '../services/document-service.ts';
import { DomainEvents } from '../services/domain-events.ts';
import { IdempotencyService } from '../services/idempotency-service.ts';
import { KeyCache } from '../services/key-cache.ts';
import { InvoiceService } from '../services/invoice-service.ts';
import { MaintenanceService } from '../services/maintenance-service.ts';
import { PaymentService } from '../services/payment-service.ts';
import { Metrics } from '../ops/metrics.ts';
import { settledBefore, StopSequence, type StopPhase, type Stopper } from '../ops/shutdown.ts';
import type { Logger } from './logger.ts';
import { RedisRequestGate } from './request-gate.ts';

export interface Container {
  config: Config;
  log: Logger;
  db: Database;
  redis: Redis;
  events: DomainEvents;
  checkPdf: PdfChecker;
  /** the worker-thread pool behind checkPdf (absent when a checker was given) */
  pdfPool?: PdfCheckPool;
  accounts: AccountService;
  customers: CustomerService;
  invoices: InvoiceService;
  documents: DocumentService;
  payments: PaymentService;
  idempotency: IdempotencyService;
  /** rate limit + key revocation check, one Redis round trip per API request */
  gate: RedisRequestGate;
  maintenance: MaintenanceService;
  /** the intake queue (producer side; workers run in the worker role) */
  intakeQueue: Queue;
  /** the IntakeReceiver the channels (FTP, mail, POST /v2/imports) hand files to */
  intake: IntakeService;
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

export async function openDatabase(config: Config): Promise<Database> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config.databasePoolSize) : openPglite(path.resolve(config.dataDir));
}

export async function createContainer(config: Config, log: Logger, opts: ContainerOptions = {}): Promise<Container> {
  const db = opts.db ?? (await openDatabase(config));
  const applied = await migrate(db);
  if (applied.length) log.info({ applied, database: db.kind }, 'database migrated');
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const events = new DomainEvents((err) => log.error({ err }, 'domain event listener failed'));
  const pdfPool = opts.checkPdf ? undefined : createPdfCheckPool(config.pdfCheckThreads);
  const pdf = opts.checkPdf ?? pdfPool!.check;
  const closers: (() => Promise<void> | void)[] = [];
  const stops = new StopSequence();
  const intakeQueue = createIntakeQueue(config, redis);
  // without a listener BullMQ prints every reconnect failure to the console
  intakeQueue.on('error', (err) => log.warn({ err: err.message }, 'intake queue redis error'));
  const metrics = new Metrics({ roles: config.roles });
  metrics.queues.watch(intakeQueue);
  events.on('intakeStatus', (e) => metrics.intake.status(e.channel, e.status));
  const intake = new IntakeService(db, new BullIntakeScheduler(intakeQueue), log.child({ part: 'intake' }), events);
  events.on('invoiceCreated', (e) => intake.onInvoiceCreated(e.scope, e.invoice));
  // Its own connection fails fast when Redis is away, where the shared one (built for BullMQ)
  // would queue commands and hold requests.
  // (auto-pipelining: concurrent requests' commands share one socket write)
  const gateRedis = redis.duplicate({ enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, enableAutoPipelining: true });
  gateRedis.on('error', () => {}); // the shared connection already logs Redis trouble
  const gate = new RedisRequestGate(gateRedis, config.redisPrefix);
  closers.push(() => gate.close());
  const keyCache = new KeyCache(config.keyCacheMs);
  gate.onConnectionLost(() => keyCache.clear());
  stops.add('queues', 'intake queue', () => intakeQueue.close());
  const c: Container = {
    config,
    log,
    db,
    redis,
    events,
    checkPdf: pdf,
    pdfPool,
    accounts: new AccountService(db, config.importAddress, { keyRotated: (scope) => events.emit('keyRotated', { scope }) }, { cache: keyCache, revocations: gate }),
    customers: new CustomerService(db),
    invoices: new InvoiceService(db, config.maxAmountCents, events),
    documents: new DocumentService(db, pdf),
    payments: new PaymentService(db, config.maxAmountCents),
    idempotency: new IdempotencyService(db, config.idempotencyTtlHours),
    maintenance: new MaintenanceService(db, config.testDataRetentionDays),
    intakeQueue,
    intake,
    gate,
    metrics,
    onStop: (phase, name, fn) => stops.add(phase, name, fn),
    onClose: (fn) => closers.push(fn),
    async close(deadline = Date.now() + config.shutdownGraceMs) {
      await stops.run(deadline, log);
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
