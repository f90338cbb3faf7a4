// Every queue of the service, declared once: its name, its job names and its job options. A
// worker's handler table must cover every job name of its queue (job-queues.ts refuses to start
// otherwise), and BullMQ's keys of every queue share one hash-tagged prefix (queuePrefix).
import type { JobsOptions } from 'bullmq';
import type { Config } from '../config/config.ts';

/** Each queue's job names, by what the code calls them. */
export const JOBS = {
  /** one received file through the pipeline; the job id is the intake id */
  intake: { process: 'intake.process' },
  /** one event to one endpoint; apart from intake so that a slow endpoint never holds intake up */
  webhooks: { deliver: 'webhook.deliver' },
  /** one message the SMTP receiver committed, through the mail pipeline; the job id is the message's id */
  mail: { smtpMessage: 'mail.smtp-message' },
  /** the periodic tasks, each a job scheduler (once per installation, whatever the processes) */
  periodic: {
    reconcile: 'intake.reconcile', retention: 'intake.retention', testDataPurge: 'test-data.purge', idempotencyPurge: 'idempotency.purge',
    sessionsPurge: 'sessions.purge', mailClaimsPurge: 'mail-claims.purge', webhooksSweep: 'webhooks.sweep', analyze: 'statistics.analyze',
    smtpReconcile: 'mail.smtp-reconcile', trailPurge: 'trail.purge',
  },
} as const;

export type QueueName = keyof typeof JOBS;
export type JobName<Q extends QueueName> = (typeof JOBS)[Q][keyof (typeof JOBS)[Q]] & string;
export const QUEUE_NAMES = Object.keys(JOBS) as QueueName[];
export const jobNames = <Q extends QueueName>(queue: Q): JobName<Q>[] => Object.values(JOBS[queue]) as JobName<Q>[];

/**
 * BullMQ's key prefix. Wrapped in a hash tag (`{ii}`) so that every key of a queue lands in one
 * Redis Cluster slot, as BullMQ requires there; a prefix that already has braces is kept.
 */
export function queuePrefix(config: Pick<Config, 'redisPrefix'>): string {
  return config.redisPrefix.includes('{') ? config.redisPrefix : `{${config.redisPrefix}}`;
}

/** The custom backoff types the workers implement (their strategies are given at start). */
export const BACKOFF = { intake: 'intake', webhooks: 'webhook' } as const;

export type WebhookConfig = Pick<Config, 'webhookBackoffMs' | 'webhookBackoffMaxMs' | 'webhookRetryWindowMs'>;

export function intakeJobOptions(config: Pick<Config, 'intakeAttempts' | 'intakeFailedRetentionDays'>): JobsOptions {
  return {
    attempts: config.intakeAttempts,
    backoff: { type: BACKOFF.intake },
    // completed jobs are only history (the record in the database is the truth): keep a little
    removeOnComplete: { age: 3600, count: 5000 },
    // failed jobs stay visible to ops for the configured retention
    removeOnFail: { age: config.intakeFailedRetentionDays * 86_400 },
  };
}

/** Enough attempts for the window at the slowest pace; the window, not this count, ends the retries. */
export function webhookJobOptions(config: WebhookConfig): JobsOptions {
  return {
    attempts: Math.ceil(config.webhookRetryWindowMs / (config.webhookBackoffMaxMs / 2)) + 32,
    backoff: { type: BACKOFF.webhooks },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 86_400 },
  };
}

/** Each queue's default job options. */
export function jobOptions(config: Config): Record<QueueName, JobsOptions> {
  return {
    intake: intakeJobOptions(config),
    webhooks: webhookJobOptions(config),
    // the database away: retried for about an hour (then the reconciler queues it again)
    mail: { attempts: 15, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 3600, count: 5000 }, removeOnFail: { age: 7 * 86_400 } },
    // a periodic task that fails waits for its next run
    periodic: { attempts: 1, removeOnComplete: { count: 200 }, removeOnFail: { count: 200 } },
  };
}
