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
import { InvoiceService } from '../services/invoice-service.ts';
import { MaintenanceService } from '../services/maintenance-service.ts';
import { PaymentService } from '../services/payment-service.ts';
import type { Logger } from './logger.ts';

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
  maintenance: MaintenanceService;
  /** the intake queue (producer side; workers run in the worker role) */
  intakeQueue: Queue;
  /** the IntakeReceiver the channels (FTP, mail, POST /v2/imports) hand files to */
  intake: IntakeService;
  /** closers run in reverse order of registration by close() */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
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
  const intakeQueue = createIntakeQueue(config, redis);
  const intake = new IntakeService(db, new BullIntakeScheduler(intakeQueue), log.child({ part: 'intake' }), events);
  events.on('invoiceCreated', (e) => intake.onInvoiceCreated(e.scope, e.invoice));
  const c: Container = {
    config,
    log,
    db,
    redis,
    events,
    checkPdf: pdf,
    pdfPool,
    accounts: new AccountService(db, config.importAddress, { keyRotated: (scope) => events.emit('keyRotated', { scope }) }),
    customers: new CustomerService(db),
    invoices: new InvoiceService(db, config.maxAmountCents, events),
    documents: new DocumentService(db, pdf),
    payments: new PaymentService(db, config.maxAmountCents),
    idempotency: new IdempotencyService(db, config.idempotencyTtlHours),
    maintenance: new MaintenanceService(db, config.testDataRetentionDays),
    intakeQueue,
    intake,
    onClose: (fn) => closers.push(fn),
    async close() {
      for (const fn of closers.reverse()) await fn();
      await intakeQueue.close();
      await pdfPool?.close();
      redis.disconnect();
      if (!opts.db) await db.close();
    },
  };
  return c;
}
