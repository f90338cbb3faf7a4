// The mail channel's periodic upkeep, for the worker role's periodic jobs: the claims and SMTP
// messages past MAIL_RETENTION_DAYS, and the committed SMTP messages nobody processed.
import type { Database } from '../../db/database.ts';
import type { MailRepositories } from './mail-repositories.ts';

export class MailUpkeep {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<MailRepositories, 'claims' | 'smtp'>,
  ) {}

  /** Moved claims and processed SMTP messages older than `days`: how many went. */
  async purge(days: number): Promise<number> {
    return (await this.repos.claims.purgeMoved(this.db, days)) + (await this.repos.smtp.purgeProcessed(this.db, days));
  }

  /** SMTP messages committed at least `afterMs` ago and not processed (their job lost with Redis, or never queued). */
  unprocessedSmtp(afterMs: number, limit: number): Promise<string[]> {
    return this.repos.smtp.unprocessed(this.db, afterMs, limit);
  }
}
