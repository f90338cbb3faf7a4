// What happens to a message the SMTP receiver committed: it is handed to the same pipeline as the
// import mailbox's messages, once per envelope recipient, each a claim of its own (transport
// smtp) keyed by the message's dedupe key and the recipient, so a run repeated (the receiver's
// own, its job, the reconciler's) stages nothing twice. The receiver's process runs it at once
// with what it has in memory (deliverCommitted); a job (its id the message's) only when that is
// not possible or failed. Delivered-To names the recipient, as an MTA's local delivery writes it,
// and routing reads it first.
import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import { newId } from '../../domain/ids.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import type { Logger } from '../../platform/logger.ts';
import type { MailIntake } from './mail-intake.ts';
import type { MailRepositories } from './mail-repositories.ts';
import { preClaimedRow, type ClaimResult, type PreClaim } from './mail-message-rows.ts';
import type { CommittedRow, SmtpMessageRow } from './smtp-message-repository.ts';

/**
 * What a delivery reads of the message's row; `preClaimed`: the claims its commit made (preClaims),
 * and when that commit was sent.
 */
export type CommittedMessage = Pick<SmtpMessageRow, 'id' | 'dedupe_key' | 'rcpt_to' | 'verdict'> & {
  preClaimed?: { claims: PreClaim[]; made: NonNullable<CommittedRow['claimed']>; at: number };
};

/** The line a delivery puts in front of the raw message for one recipient (routing reads it first). */
const deliveredTo = (rcpt: string) => Buffer.from(`Delivered-To: ${rcpt}\r\n`);

/** The claim key of one recipient's copy of a message: a run repeated stages nothing twice. */
const claimKey = (dedupeKey: string, rcpt: string) => createHash('sha256').update(dedupeKey).update('\0').update(rcpt).digest('hex');

interface SmtpDeliveryOptions {
  db: Database;
  repos: Pick<MailRepositories, 'smtp'>;
  intake: MailIntake;
  log: Logger;
  /** raw messages this process committed, if it keeps them for its own worker */
  handedOff?: { take(id: string): Buffer | undefined };
  /** marks a message processed, if not by a statement of its own (a group commit of them) */
  markProcessed?: (id: string) => Promise<void>;
}

export class SmtpDelivery {
  /** messages being handed over by this process */
  private readonly running = new Set<string>();

  private readonly db: Database;
  private readonly repos: Pick<MailRepositories, 'smtp'>;
  private readonly intake: MailIntake;
  private readonly log: Logger;
  private readonly handedOff: { take(id: string): Buffer | undefined } | undefined;
  private readonly markProcessed: (id: string) => Promise<void>;

  constructor(o: SmtpDeliveryOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.intake = o.intake;
    this.log = o.log;
    this.handedOff = o.handedOff;
    this.markProcessed = o.markProcessed ?? ((id) => this.repos.smtp.markProcessed(this.db, [id]));
  }

  /** Hands the message to the pipeline; throws to be retried (nothing is staged twice). */
  async deliver(id: string): Promise<'processed' | 'gone' | 'done'> {
    const row = await this.repos.smtp.get(this.db, id);
    if (!row) return 'gone';
    const kept = this.handedOff?.take(id);
    if (row.processed_at) return 'done';
    const raw = kept ?? (await this.repos.smtp.raw(this.db, id));
    if (!raw) return 'gone';
    return this.deliverCommitted(row, raw);
  }

  /** The claims for the statement that commits this message to make, one a recipient, for this process's own run of it (deliverCommitted). */
  preClaims(smtpId: string, dedupeKey: string, rcptTo: string[], rawBytes: number): PreClaim[] {
    return rcptTo.map((rcpt) => ({
      id: newId('msg'),
      smtpId,
      // the pipeline's own claims' mailbox and lease, as its claim() makes them
      mailbox: this.intake.opts.mailbox,
      key: claimKey(dedupeKey, rcpt),
      size: deliveredTo(rcpt).length + rawBytes,
      owner: this.intake.owner,
      leaseMs: this.intake.opts.leaseMs,
    }));
  }

  /**
   * The receiver's own process, right after the commit: the row and the raw message are what it
   * just committed, so nothing is read back. Throws to be retried by the message's job.
   */
  async deliverCommitted(row: CommittedMessage, raw: Buffer): Promise<'processed'> {
    const { id } = row;
    // the receiver's run and a job of the same message (a duplicate's, the reconciler's) in one
    // process share the claims' owner, so a claim would not keep them apart: this does
    if (this.running.has(id)) throw new Error(`smtp message ${id} is being processed in this process`);
    this.running.add(id);
    let marked = false;
    try {
      for (const [i, rcpt] of row.rcpt_to.entries()) {
        // the last recipient's staging marks the message processed in its own commit (all before it are staged)
        const last = i === row.rcpt_to.length - 1 ? id : undefined;
        marked = await this.deliverTo(raw, row.dedupe_key, rcpt, row.verdict, this.preClaimed(row, rcpt), last);
      }
    } catch (err) {
      await this.repos.smtp.noteAttempt(this.db, id, (err as Error).message).catch(() => {});
      throw err;
    } finally {
      this.running.delete(id);
    }
    if (!marked) await this.markProcessed(id);
    this.log.info({ smtpMessage: id, recipients: row.rcpt_to.length }, 'smtp message processed');
    return 'processed';
  }

  /**
   * The claim the commit made for this recipient, while at most half its lease has gone since the
   * commit was sent: no one can have taken it over yet, and from process() on it is renewed as any
   * claim. Else (none made, or older) claim() as any run does.
   */
  private preClaimed(row: CommittedMessage, rcpt: string): ClaimResult | undefined {
    const p = row.preClaimed;
    if (!p) return undefined;
    const key = claimKey(row.dedupe_key, rcpt);
    const pre = p.claims.find((c) => c.key === key);
    const made = pre && p.made.get(pre.id);
    if (!pre || !made || Date.now() - p.at >= pre.leaseMs / 2) return undefined;
    return { kind: 'claimed', row: preClaimedRow(pre, made.claimedAt, made.leaseUntil), resumed: false };
  }

  /** True when the staging marked the message `processed` (its id given) processed too. */
  private async deliverTo(
    raw: Buffer,
    dedupeKey: string,
    rcpt: string,
    verdict: SenderVerdict,
    preClaimed?: ClaimResult,
    processed?: string,
  ): Promise<boolean> {
    const source = Buffer.concat([deliveredTo(rcpt), raw]);
    const claim = preClaimed ?? (await this.intake.claim({ uidvalidity: 0, uid: 0, key: claimKey(dedupeKey, rcpt), size: source.length }));
    if (claim.kind === 'staged') {
      // staged by an earlier run that died before it noted it done
      await this.intake.markMoved([claim.row.id], 0);
      return false;
    }
    if (claim.kind === 'busy') throw new Error(`mail message ${claim.row.id} is being processed by another worker`);
    try {
      // the verdict our receiver computed; the message's own Authentication-Results are never read
      const planned = await this.intake.process(claim.row, claim.resumed, { kind: 'whole', source }, verdict);
      // staged and moved by one statement: there is no folder to move it to
      const also = processed ? (params: unknown[]) => this.repos.smtp.processedInStatement(params, processed, 's') : undefined;
      if (!(await this.intake.stageAll([planned], { moved: true, also })).length)
        throw new Error(`mail message ${claim.row.id} was taken over before it was staged`);
      return Boolean(processed);
    } catch (err) {
      await this.intake.fail(claim.row, err).catch(() => {});
      throw err;
    }
  }
}
