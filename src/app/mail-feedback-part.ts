// The replies to senders (MailFeedback) as the mail role and the smtp role build them: the mail
// role runs them when it reads a mailbox, the smtp role when no mail role does (SMTP only).
import type { Container } from './container.ts';
import type { Config } from '../config/config.ts';
import { DomainError } from '../domain/errors.ts';
import type { ImportRecord } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import type { Logger } from '../platform/logger.ts';
import { MailFeedback, type ReplySender } from '../channels/mail/mail-feedback.ts';
import type { MailMetrics } from '../channels/mail/mail-metrics.ts';

/** reads import records (their final status decides the replies) */
export type RecordReader = { get(scope: Scope, id: string): Promise<ImportRecord>; archiveFiles(scope: Scope, archiveId: string): Promise<ImportRecord[]> };

export function buildMailFeedback(c: Container, config: Config, records: RecordReader, sender: ReplySender, metrics: MailMetrics, log: Logger): MailFeedback {
  // a record that is gone (purged) is no outcome; any other error is retried by the caller
  const readRecord = async (scope: Scope, id: string): Promise<ImportRecord[]> => {
    const record = await records.get(scope, id).catch((e) => {
      if (e instanceof DomainError && e.kind === 'not_found') return undefined;
      throw e;
    });
    if (!record) return [];
    return record.status === 'unpacked' ? records.archiveFiles(scope, id) : [record];
  };
  return new MailFeedback({
    db: c.db,
    repos: c.mailRepos,
    readRecord,
    sender,
    log,
    settings: {
      from: config.mailReplyFrom ?? config.importAddress,
      limitPerHour: config.mailReplyLimitPerHour,
      intervalMs: config.mailFeedbackIntervalMs,
      // a 24 h match window: look every minute; a short one (tests): every round
      waitingRecheckMs: Math.min(60_000, Math.max(config.mailFeedbackIntervalMs, Math.floor(config.intakeMatchWindowMs / 20))),
      expireAfterMs: config.intakeMatchWindowMs + 24 * 3_600_000,
      onLimited: (first) => metrics.replySuppressed(first),
    },
  });
}
