// What happens to one message of the import mailbox, independent of IMAP: claim it, route it
// to an account by recipient, hand each PDF to the intake pipeline, record why not when there
// is none, and decide where it goes (Processed or Failed) and whether its sender is owed a reply.
import { createHash, randomBytes } from 'node:crypto';
import pMap from 'p-map';
import type { Logger } from '../../platform/logger.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { newId } from '../../domain/ids.ts';
import type { Scope } from '../../domain/scope.ts';
import type { IntakeReceiver } from '../../intake/intake-port.ts';
import type { ImportRecord } from '../../domain/intake.ts';
import { imapHeaderVerdict } from '../../domain/authentication-results.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import { senderStanding, type SenderStanding } from '../../domain/sender-policy.ts';
import { intakeReason } from '../../domain/intake-reasons.ts';
import { automaticMessage, type AutomaticMail } from './auto-reply-rules.ts';
import { replyFor } from './reply-decision.ts';
import type { ClaimResult, FileRow, MessageOutcome, MessageRow, StageInput } from './mail-message-rows.ts';
import type { MailRepositories } from './mail-repositories.ts';
import { incomingFile, planImports } from './message-imports.ts';
import { parseMessage, type ParsedMessage } from './message-parser.ts';
import { recipientCandidates, routeByRecipient } from './recipient-routing.ts';
import type { MailIntakeOptions, MessageContent, PlannedMessage, ProcessResult } from './mail-intake-types.ts';

/** A message read, with who sent it as far as anyone checked. */
type CheckedMessage = ParsedMessage & { verdict: SenderVerdict; standing?: SenderStanding };

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export class MailIntake {
  /** this process's claim owner id: a restarted poller is a new owner */
  readonly owner = `mp_${randomBytes(8).toString('hex')}`;
  private readonly inFlight = new Set<string>();
  private readonly routes = new Map<string, { scope: Scope | undefined; until: number }>();
  private renewTimer: NodeJS.Timeout | undefined;

  private readonly db: Database;
  private readonly repos: Pick<MailRepositories, 'claims'>;
  private readonly intake: IntakeReceiver;
  private readonly findByImportAddress: (address: string) => Promise<Scope | undefined>;
  private readonly log: Logger;

  constructor(
    deps: {
      db: Database;
      repos: Pick<MailRepositories, 'claims'>;
      intake: IntakeReceiver;
      findByImportAddress: (address: string) => Promise<Scope | undefined>;
      log: Logger;
    },
    readonly opts: MailIntakeOptions,
  ) {
    ({ db: this.db, repos: this.repos, intake: this.intake, findByImportAddress: this.findByImportAddress, log: this.log } = deps);
    // claims being worked on keep their lease, however slow the message is
    this.renewTimer = setInterval(
      () => {
        this.repos.claims
          .renewLeases(this.db, this.owner, [...this.inFlight], this.opts.leaseMs)
          .catch((err) => this.log.warn({ err }, 'mail claim lease renewal failed'));
      },
      Math.max(200, Math.floor(opts.leaseMs / 3)),
    );
    this.renewTimer.unref();
  }

  /** Records the mailbox's UIDVALIDITY; returns the last UID seen under it and the previous UIDVALIDITY if it changed. */
  async syncMailbox(uidvalidity: number): Promise<{ lastUid: number; previous?: number }> {
    const { row, previous } = await this.repos.claims.syncMailbox(this.db, this.opts.mailbox, uidvalidity);
    return { lastUid: row.last_uid, previous };
  }

  async advanceLastUid(uidvalidity: number, uid: number): Promise<void> {
    await this.repos.claims.advanceLastUid(this.db, this.opts.mailbox, uidvalidity, uid);
  }

  claim(m: { uidvalidity: number; uid: number; key: string; size: number }): Promise<ClaimResult> {
    return this.repos.claims.claim(this.db, {
      id: newId('msg'),
      mailbox: this.opts.mailbox,
      transport: this.opts.transport ?? 'imap',
      ...m,
      owner: this.owner,
      leaseMs: this.opts.leaseMs,
    });
  }

  /**
   * Claims a batch: new messages in one statement, the others one by one (taken over, staged
   * already, or busy). Results in the order given; a message whose key repeats one earlier in
   * the batch (a byte-identical copy) gets `duplicate`.
   */
  async claimBatch(list: { uidvalidity: number; uid: number; key: string; size: number }[], concurrency: number): Promise<(ClaimResult | 'duplicate')[]> {
    const firstOf = new Map<string, number>();
    list.forEach((m, i) => firstOf.has(m.key) || firstOf.set(m.key, i));
    const unique = [...firstOf.values()].map((i) => list[i]);
    const inserted = new Map(
      (
        await this.repos.claims.claimNew(
          this.db,
          this.opts.mailbox,
          this.owner,
          this.opts.leaseMs,
          unique.map((m) => ({ id: newId('msg'), ...m })),
        )
      ).map((r) => [r.message_key, r]),
    );
    return pMap(
      list.entries(),
      async ([i, m]): Promise<ClaimResult | 'duplicate'> => {
        if (firstOf.get(m.key) !== i) return 'duplicate';
        const row = inserted.get(m.key);
        return row ? { kind: 'claimed', row, resumed: false } : this.claim(m);
      },
      { concurrency },
    );
  }

  /**
   * Hands the claimed message's files to the intake pipeline and says how to stage the claim
   * (stageAll() does that for a whole batch, in one commit). Throws when the pipeline refused:
   * fail() then releases the claim for a later try; nothing was lost. `verdict`: who sent it, as
   * the receiver checked it (SMTP); absent, for mail read by IMAP: the mailbox server's trusted
   * Authentication-Results header (domain/authentication-results.ts), else unchecked.
   */
  async process(row: MessageRow, resumed: boolean, content: MessageContent, verdict?: SenderVerdict): Promise<PlannedMessage> {
    this.inFlight.add(row.id);
    return this.plan(row, resumed, content, verdict);
  }

  /**
   * Stages handed-over messages in one transaction (one alone: its one statement, no transaction
   * around it). Returns those staged; a claim another poller took over meanwhile is left out (and
   * logged). `moved`: they have nothing to be moved afterwards (SMTP).
   */
  async stageAll(list: PlannedMessage[], opts: { moved?: boolean; also?: StageInput['also'] } = {}): Promise<ProcessResult[]> {
    if (!list.length) return [];
    const stageIn = async (q: Queryable) => {
      const ok: ProcessResult[] = [];
      for (const prepared of list) {
        if (await this.repos.claims.stage(q, { ...prepared.stage, moved: opts.moved, also: opts.also })) ok.push(prepared.result);
        else this.log.error({ mailMessage: prepared.result.id }, 'mail claim was taken over by another poller before it was staged');
      }
      return ok;
    };
    try {
      return await (list.length === 1 ? stageIn(this.db) : this.db.transaction(stageIn));
    } finally {
      for (const prepared of list) this.inFlight.delete(prepared.result.id);
    }
  }

  /** The message could not be handled this time: keep it in the mailbox, let the next drain retry. */
  async fail(row: MessageRow, err: unknown): Promise<void> {
    this.inFlight.delete(row.id);
    const message = err instanceof Error ? err.message : String(err);
    await this.repos.claims.recordError(this.db, row.id, this.owner, message);
  }

  async markMoved(ids: string[], topUid: number): Promise<void> {
    await this.repos.claims.markMoved(this.db, ids, topUid);
  }

  /** Graceful stop: unfinished claims may be taken by the next poller at once. */
  async release(): Promise<void> {
    clearInterval(this.renewTimer);
    await this.repos.claims.releaseOwner(this.db, this.owner);
  }

  private async plan(row: MessageRow, resumed: boolean, content: MessageContent, given?: SenderVerdict): Promise<PlannedMessage> {
    let parsed: CheckedMessage;
    try {
      const read = await parseMessage(content.kind === 'whole' ? content.source : content.headers);
      parsed = { ...read, verdict: given ?? imapHeaderVerdict(read.header('authentication-results'), read.from, this.opts.authservId) };
    } catch (err) {
      return this.finish(row, undefined, undefined, 'failed', `The message could not be read: ${(err as Error).message}`, []);
    }
    const { verdict } = parsed;
    const route = await routeByRecipient(recipientCandidates(parsed.header), (a) => this.lookup(a));
    // traceId: the key every log line of this message's files carries, through the workers to attached
    const traceId = parsed.messageId ?? `${this.opts.mailbox}:${row.uidvalidity}:${row.uid}`;
    const log = this.log.child({ mailMessage: row.id, uid: row.uid, messageId: parsed.messageId, traceId });
    // automatic mail is nobody's failure: a report is never imported, other automatic mail only
    // when it carries files (billing systems send invoices as auto-generated mail)
    const automatic = automaticMessage(parsed.header, parsed.subject);
    if (automatic?.report) return this.ignore(row, parsed, route.scope, automatic, log);
    if (!route.scope) {
      // e.g. a bounce of a reply sent from the import address itself; automatic mail with files
      // to nobody's address is misrouted mail, for the failed mailbox like any other
      if (automatic && (await planImports(parsed, content, sha256)).nothing) return this.ignore(row, parsed, undefined, automatic, log);
      log.warn({ reason: route.reason }, 'mail for an unknown recipient: moved to the failed mailbox');
      return this.finish(row, parsed, undefined, 'failed', route.reason, []);
    }
    const scope = route.scope;
    const sender = parsed.from || 'unknown';
    // the account's sender policy: a sender it does not allow has its files held for an owner
    parsed.standing = senderStanding((await this.opts.senderPolicy?.(scope)) ?? { policy: 'anyone', senders: [] }, verdict);
    const hold =
      parsed.standing === 'unlisted'
        ? intakeReason('held_sender_not_listed', { sender })
        : parsed.standing === 'unauthenticated'
          ? intakeReason('held_sender_not_authenticated', { sender })
          : undefined;
    const plan = await planImports(parsed, content, sha256);
    if (automatic && plan.nothing) return this.ignore(row, parsed, scope, automatic, log);
    // a fresh claim has no files yet; a resumed one may have some
    const done = new Set(resumed ? (await this.repos.claims.files(this.db, row.id)).map((f) => f.slot) : []);
    let recent: ImportRecord[] | undefined;
    // A resumed claim may have handed a file over just before its poller died, without the
    // bookkeeping row: find that record instead of staging the file a second time.
    const adopt = async (filename: string, sha: string) => {
      if (!resumed) return undefined;
      recent ??= await this.intake.recent(scope, this.opts.adoptWindow ?? 500);
      const since = row.claimed_at.getTime() - 5000;
      return recent.find((r) => r.channel === 'mail' && r.sender === sender && r.filename === filename && r.sha256 === sha && r.receivedAt.getTime() >= since);
    };
    const send = async (item: (typeof plan.items)[number]): Promise<ImportRecord> => {
      const { file, filename } = item;
      if (file)
        return (
          (await adopt(filename, item.sha256!)) ??
          this.intake.receive(
            incomingFile(file, { scope, sender, traceId, subject: parsed.subject, messageFiles: plan.messageFiles, senderVerdict: verdict, hold }),
          )
        );
      return this.intake.recordFailure({ scope, channel: 'mail', sender, filename, traceId, senderVerdict: verdict }, item.reason!);
    };
    // each file is noted as handed over right after; the last one with the staging itself
    let last: FileRow[] = [];
    // the folder says whether anything of the message is in the pipeline: a file refused at once
    // (too large, not a PDF, a 7z) is as failed as a part too large to download (docs/mail.md)
    let taken = [...done].some((slot) => slot.startsWith('pdf:'));
    let refusal: string | null = null;
    for (const [i, item] of plan.items.entries()) {
      if (done.has(item.slot)) continue;
      const record = await send(item);
      if (record.status !== 'failed') taken = true;
      else refusal ??= record.reason;
      const noted: FileRow = { message_id: row.id, slot: item.slot, intake_id: record.id, filename: item.filename, sha256: item.sha256, origin: item.origin };
      if (i === plan.items.length - 1) last = [noted];
      else await this.repos.claims.addFile(this.db, noted);
    }
    const outcome = plan.outcome === 'processed' && !taken ? 'failed' : plan.outcome;
    const reason = outcome === plan.outcome ? plan.reason : (refusal ?? plan.reason);
    const result = this.finish(row, parsed, scope, outcome, reason, last, plan.files.length + (content.kind === 'parts' ? content.skipped.length : 0));
    const files = plan.items
      .filter((x) => x.file)
      .map((x) => (x.origin ? { name: x.filename, in: x.file!.via, ...(x.file!.signature ? { signature: x.file!.signature } : {}) } : x.filename));
    log.info({ account: scope.accountId, mode: scope.mode, files, outcome }, 'mail message received as imports');
    return result;
  }

  /** Automatic mail without files: no import record, its own mailbox, said once in the log. */
  private ignore(row: MessageRow, parsed: CheckedMessage, scope: Scope | undefined, automatic: AutomaticMail, log: Logger): PlannedMessage {
    log.info({ category: automatic.category, reason: automatic.reason, account: scope?.accountId, from: parsed.from }, 'automatic mail: not imported');
    this.opts.onAutomatic?.(automatic.category);
    return this.finish(row, parsed, scope, 'ignored', automatic.reason, []);
  }

  /** Import addresses never change: remember lookups for a minute (one query less per message). */
  private async lookup(address: string): Promise<Scope | undefined> {
    const hit = this.routes.get(address);
    if (hit && hit.until > Date.now()) return hit.scope;
    const scope = await this.findByImportAddress(address);
    if (this.routes.size > 10_000) this.routes.clear();
    this.routes.set(address, { scope, until: Date.now() + 60_000 });
    return scope;
  }

  private finish(
    row: MessageRow,
    parsed: CheckedMessage | undefined,
    scope: Scope | undefined,
    outcome: MessageOutcome,
    reason: string | null,
    files: FileRow[],
    count = 0,
  ): PlannedMessage {
    const reply =
      this.opts.replies && scope && parsed
        ? replyFor(parsed.header, parsed.verdict, parsed.standing ?? 'allowed', this.opts.ownAddresses, parsed.references)
        : undefined;
    return {
      result: { id: row.id, outcome, reason, scope, files: count },
      stage: {
        id: row.id,
        owner: this.owner,
        outcome,
        reason,
        scope,
        sender: parsed?.from ?? null,
        subject: parsed?.subject ?? null,
        headerMessageId: parsed?.messageId ?? null,
        files,
        reply,
        verdict: parsed?.verdict,
      },
    };
  }
}
