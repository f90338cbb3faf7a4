// The process's Prometheus metrics: one registry per container (never prom-client's global one,
// so test apps in one process do not share counters), and small typed interfaces through which
// the HTTP layer, the intake pipeline and the IMAP poller report what happens. The FTP and SFTP
// servers register their own series in `registry` (src/channels/transfer/transfer-metrics.ts).
// Nothing here imports fastify, ftp-srv or imapflow; BullMQ queues are read at scrape time (queue-metrics.ts).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { IntakeChannel, IntakeStatus } from '../domain/intake.ts';
import { HttpRequestMetrics } from './http-request-metrics.ts';
import { queueMetrics, type QueueMetrics } from './queue-metrics.ts';
import type { TransferChannel } from '../domain/channels.ts';

/** What the intake pipeline reports: each file entering a status. */
export interface IntakeMetrics {
  /** `receivedAt` with `attached`: the time from upload to attached is observed */
  status(channel: IntakeChannel, status: IntakeStatus, receivedAt?: Date): void;
  /** the reconciler queued again this many staged files whose job Redis had lost */
  requeued(files: number): void;
  /** a group of received files staged together (one statement, one commit): how many, how many bytes */
  stagingBatch(files: number, bytes: number): void;
}

export type ImapConnectionState = 'disconnected' | 'connecting' | 'connected';

/** What the IMAP poller reports. */
export interface ImapMetrics {
  connectionState(state: ImapConnectionState): void;
  /** a drain of the mailbox finished without error (IDLE wake-up or poll) */
  pollSucceeded(at?: Date): void;
}

type WebhookOutcome = 'delivered' | 'retried' | 'failed';

/** What webhook delivery reports, and where the backlog gauge reads the outbox at scrape time. */
export interface WebhookMetrics {
  delivery(outcome: WebhookOutcome, seconds: number): void;
  /** seconds since the oldest event not yet delivered (nor given up) was recorded */
  observeBacklog(read: () => Promise<number>): void;
  /** the enabled endpoints whose deliveries are failing now, and since how many seconds */
  observeFailingEndpoints(read: () => Promise<FailingEndpoint[]>): void;
}

interface FailingEndpoint {
  endpoint: string;
  account: string;
  mode: string;
  seconds: number;
}

/** Which limit before login turned a connection away (per_address, rate) or closed it (handshake_timeout). */
export type PreLoginLimit = 'per_address' | 'rate' | 'handshake_timeout';

/** What the FTP and SFTP servers' limits before login report (src/channels/transfer/pre-login-gate.ts). */
export interface TransferLimitMetrics {
  hit(protocol: TransferChannel, limit: PreLoginLimit): void;
}

export interface HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

const IMAP_STATES: ImapConnectionState[] = ['disconnected', 'connecting', 'connected'];

export class Metrics {
  readonly registry = new Registry();
  readonly http: HttpMetrics;
  readonly intake: IntakeMetrics;
  readonly imap: ImapMetrics;
  readonly queues: QueueMetrics;
  readonly webhooks: WebhookMetrics;
  readonly transferLimits: TransferLimitMetrics;

  constructor(opts: { roles?: readonly string[]; defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });

    new Gauge({ name: 'invoice_intake_info', help: 'Always 1; the roles this process runs', labelNames: ['roles'], registers }).set(
      { roles: (opts.roles ?? []).join(',') },
      1,
    );

    this.http = new HttpRequestMetrics(this.registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

    const intakeImports = new Counter({
      name: 'intake_imports_total',
      help: 'Imports entering a status, by channel',
      labelNames: ['channel', 'status'],
      registers,
    });
    const toAttached = new Histogram({
      name: 'intake_upload_to_attached_seconds',
      help: "Time from an import's receipt (staged) to its attachment, by channel, observed by the worker that attached it",
      labelNames: ['channel'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600],
      registers,
    });
    const requeued = new Counter({
      name: 'intake_reconciler_requeued_total',
      help: 'Staged imports whose job was missing in Redis, queued again by the reconciler',
      registers,
    });
    const stagingBatch = new Histogram({
      name: 'intake_staging_batch_size',
      help: 'Files staged together by one statement and one commit (group commit of received files)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    });
    this.intake = {
      status(channel, status, receivedAt) {
        intakeImports.inc({ channel, status });
        if (status === 'attached' && receivedAt) toAttached.observe({ channel }, Math.max(0, (Date.now() - receivedAt.getTime()) / 1000));
      },
      requeued: (files) => requeued.inc(files),
      stagingBatch: (files) => stagingBatch.observe(files),
    };

    // registered by the first report: a process without a poller (no mail role, or no IMAP_URL)
    // has no IMAP series, so that alerts see pollers only
    let imapState: ImapConnectionState = 'connecting';
    let lastPoll: number | undefined;
    let imapRegistered = false;
    const registerImap = () => {
      if (imapRegistered) return;
      imapRegistered = true;
      new Gauge({
        name: 'imap_connection_state',
        help: 'IMAP poller connection: 1 for the current state',
        labelNames: ['state'],
        registers,
        collect() {
          for (const s of IMAP_STATES) this.set({ state: s }, s === imapState ? 1 : 0);
        },
      });
      new Gauge({
        name: 'imap_last_poll_success_timestamp_seconds',
        help: 'Unix time of the last mailbox drain that succeeded (0: none yet)',
        registers,
        collect() {
          this.set(lastPoll ? lastPoll / 1000 : 0);
        },
      });
      new Gauge({
        name: 'imap_seconds_since_last_poll',
        help: 'Seconds since the last mailbox drain that succeeded (-1: none yet)',
        registers,
        collect() {
          this.set(lastPoll ? (Date.now() - lastPoll) / 1000 : -1);
        },
      });
    };
    this.imap = {
      connectionState: (s) => void (registerImap(), (imapState = s)),
      pollSucceeded: (at = new Date()) => void (registerImap(), (lastPoll = at.getTime())),
    };

    const limitHits = new Counter({
      name: 'transfer_prelogin_limit_hits_total',
      help: 'FTP/FTPS/SFTP connections refused or closed before login by a per-address limit (per_address, rate) or the handshake timeout',
      labelNames: ['protocol', 'limit'],
      registers,
    });
    this.transferLimits = { hit: (protocol, limit) => limitHits.inc({ protocol, limit }) };

    const deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by this process, by outcome (retried: failed, will run again)',
      labelNames: ['outcome'],
      registers,
    });
    const deliveryDuration = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Time from request to answer (or error) of webhook deliveries',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    let backlog: (() => Promise<number>) | undefined;
    new Gauge({
      name: 'webhook_oldest_undelivered_seconds',
      help: 'Age of the oldest webhook event not yet delivered nor given up (0: none), read from the database at scrape time',
      registers,
      async collect() {
        // database away: leave the series out rather than fail the whole scrape
        const age = await backlog?.().catch(() => undefined);
        if (age === undefined) this.reset();
        else this.set(age);
      },
    });
    let failing: (() => Promise<FailingEndpoint[]>) | undefined;
    new Gauge({
      name: 'webhook_endpoint_failing_seconds',
      help: 'Seconds since the deliveries of an enabled endpoint began failing in a row, for each endpoint failing now (read from the database at scrape time)',
      labelNames: ['endpoint', 'account', 'mode'],
      registers,
      async collect() {
        this.reset();
        for (const e of (await failing?.().catch(() => undefined)) ?? []) this.set({ endpoint: e.endpoint, account: e.account, mode: e.mode }, e.seconds);
      },
    });
    this.webhooks = {
      delivery(outcome, seconds) {
        deliveries.inc({ outcome });
        deliveryDuration.observe({ outcome }, Math.max(0, seconds));
      },
      observeBacklog: (read) => void (backlog = read),
      observeFailingEndpoints: (read) => void (failing = read),
    };

    this.queues = queueMetrics(registers);
  }

  /**
   * The PDF check threads' own V8 heaps (each thread is an isolate: its heap is not in
   * nodejs_heap_*, yet it is resident): what a process's memory holds beyond its main thread.
   */
  observePdfThreads(read: () => { threads: number; usedBytes: number; totalBytes: number }): void {
    new Gauge({
      name: 'intake_pdf_thread_heap_bytes',
      help: "The PDF check threads' V8 heaps, summed over the threads running: used, and total (held by V8)",
      labelNames: ['kind'],
      registers: [this.registry],
      collect() {
        const t = read();
        this.set({ kind: 'used' }, t.usedBytes);
        this.set({ kind: 'total' }, t.totalBytes);
      },
    });
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * The series of a file-transfer channel (FTP or SFTP, `<prefix>_*`), read from its own counters
 * at scrape time: set to their running totals then.
 */
