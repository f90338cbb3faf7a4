// The poller: keeps one IMAP session to the import mailbox, drains it whenever IDLE reports new
// mail (or the poll interval passes, for servers without IDLE and as a safety net), pings a
// quiet connection so a silently dead one is noticed, and reconnects with backoff after any
// error. A message is claimed before its files go to the intake pipeline and moved only after.
import { EventEmitter } from 'node:events';
import type { Logger } from '../../app/logger.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/pdf.ts';
import type { MessageOutcome, MessageRow } from './mail-repository.ts';
import type { MailIntake, MessageContent, Prepared, ProcessResult } from './mail-intake.ts';
import type { MailboxSession, MessageMeta } from './imap-mailbox.ts';
import { messageKey } from './message-key.ts';
import { fileNameFromHeaders, headerFields } from './mime-names.ts';
import { candidateStructureParts, decodePartStart, isPdfBytes, maxEncodedSize, type MessagePart } from './pdf-parts.ts';

export interface PollerSettings {
  processedMailbox: string;
  failedMailbox: string;
  pollIntervalMs: number;
  watchdogIntervalMs: number;
  watchdogTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  maxMessageBytes: number;
  batchSize: number;
  concurrency: number;
  /** how soon to look again at messages another poller held or that failed (the claim lease) */
  recheckMs: number;
}

export interface PollerStats {
  connects: number;
  drains: number;
  processed: number;
  failed: number;
  moved: number;
  errors: number;
  /** bytes read from the IMAP server, over all sessions */
  bytesReceived: number;
}

/** Exponential backoff with +-20 % jitter: min, 2*min, 4*min, ... up to max. */
export function reconnectDelay(attempt: number, minMs: number, maxMs: number, random = Math.random): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Runs fn over items, at most `limit` at once; waits for every item, then throws the first error. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let firstError: unknown;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]);
      } catch (e) {
        firstError ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (firstError) throw firstError;
  return out;
}

/** Groups items so that each group's total size stays under `maxBytes` (a bigger item goes alone). */
function bySize<T>(items: T[], size: (t: T) => number, maxBytes: number): T[][] {
  const groups: T[][] = [];
  let cur: T[] = [];
  let total = 0;
  for (const item of items) {
    if (cur.length && total + size(item) > maxBytes) {
      groups.push(cur);
      cur = [];
      total = 0;
    }
    cur.push(item);
    total += size(item);
  }
  if (cur.length) groups.push(cur);
  return groups;
}

const FETCH_GROUP_BYTES = 32 * 1024 * 1024;

type Claimed = { meta: MessageMeta; row: MessageRow; resumed: boolean };

export class MailPoller extends EventEmitter {
  readonly stats: PollerStats = { connects: 0, drains: 0, processed: 0, failed: 0, moved: 0, errors: 0, bytesReceived: 0 };
  private stopping = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private newMail = false;
  private lastUid = 0;
  /** messages left in the mailbox by the last drain (held by another poller, or failed) */
  private leftBehind = 0;
  private current: MailboxSession | undefined;
  private stopSignal: () => void = () => {};
  private readonly stopped = new Promise<void>((r) => (this.stopSignal = r));

  constructor(
    private readonly open: () => Promise<MailboxSession>,
    private readonly intake: MailIntake,
    private readonly settings: PollerSettings,
    private readonly log: Logger,
  ) {
    super();
  }

  /** bytes read from the IMAP server so far, the open session included */
  receivedBytes(): number {
    return this.stats.bytesReceived + (this.current?.bytesReceived() ?? 0);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /**
   * Finishes the batch in hand (for at most `graceMs`; then the connection is closed under it),
   * closes the connection and releases unfinished claims.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    this.stopSignal();
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      this.running?.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (late) await this.current?.close().catch(() => {});
    await this.running;
    await this.intake.release();
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.stopping) {
      let session: MailboxSession | undefined;
      let failure: unknown;
      try {
        // a connection attempt may take long (an unreachable host): stop does not wait for it
        const opening = this.open();
        const opened = await Promise.race([opening, this.stopped.then(() => undefined)]);
        if (!opened) {
          opening.then((s) => s.close(), () => {}).catch(() => {});
          break;
        }
        session = opened;
        this.current = session;
        this.stats.connects++;
        this.log.info({ mailbox: session.mailbox, uidValidity: session.uidValidity, idle: session.idle }, 'mail poller connected');
        this.emit('connected', session);
        await this.runSession(session, () => (attempt = 0));
      } catch (err) {
        failure = err;
      } finally {
        if (session) {
          this.current = undefined;
          this.stats.bytesReceived += session.bytesReceived();
          await session.close().catch(() => {});
        }
      }
      if (failure && !this.stopping) {
        this.stats.errors++;
        const delay = reconnectDelay(attempt++, this.settings.reconnectMinMs, this.settings.reconnectMaxMs);
        this.log.warn({ err: (failure as Error).message, retryInMs: delay }, 'mail poller lost its IMAP session; reconnecting');
        this.emit('disconnected', failure);
        await this.sleep(delay);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async runSession(session: MailboxSession, healthy: () => void): Promise<void> {
    const sync = await this.intake.syncMailbox(session.uidValidity);
    if (sync.previous !== undefined) {
      this.log.warn({ mailbox: session.mailbox, from: sync.previous, to: session.uidValidity }, 'UIDVALIDITY changed: rescanning the whole mailbox');
    }
    this.lastUid = sync.lastUid;
    session.onNewMail(() => {
      this.newMail = true;
      this.wakeUp?.();
    });
    let closedReason: Error | undefined;
    void session.closed.then((e) => {
      closedReason = e;
      this.wakeUp?.();
    });
    let full = true;
    let nextPoll = 0;
    while (!this.stopping) {
      if (closedReason) throw closedReason;
      if (full || this.newMail) {
        const whole = full;
        full = false;
        this.newMail = false;
        if (whole) nextPoll = Date.now() + this.settings.pollIntervalMs;
        this.leftBehind = 0;
        await this.drain(session, whole);
        healthy();
        if (this.leftBehind) nextPoll = Math.min(nextPoll, Date.now() + this.settings.recheckMs);
        continue;
      }
      const quiet = session.quietFor();
      if (quiet >= this.settings.watchdogIntervalMs) {
        // a connection that stays quiet may be dead without either side knowing: ask
        await session.ping(this.settings.watchdogTimeoutMs);
        continue;
      }
      const wait = Math.max(0, Math.min(nextPoll - Date.now(), this.settings.watchdogIntervalMs - quiet));
      await this.sleep(wait);
      if (Date.now() >= nextPoll) full = true;
    }
  }

  /** Hands over every message in the mailbox (whole) or those above the last UID seen (new mail). */
  private async drain(session: MailboxSession, whole: boolean): Promise<void> {
    this.stats.drains++;
    const uids = await session.searchUids(whole ? undefined : this.lastUid);
    for (let i = 0; i < uids.length && !this.stopping; i += this.settings.batchSize) {
      const batch = uids.slice(i, i + this.settings.batchSize);
      await this.drainBatch(session, batch);
      const top = batch[batch.length - 1];
      if (top > this.lastUid) {
        this.lastUid = top;
        await this.intake.advanceLastUid(session.uidValidity, top);
      }
    }
    this.emit('drained', { whole, seen: uids.length });
  }

  private async drainBatch(session: MailboxSession, uids: number[]): Promise<void> {
    const metas = await session.fetchMeta(uids);
    const results = await this.intake.claimBatch(
      metas.map((meta) => ({ uidvalidity: session.uidValidity, uid: meta.uid, key: messageKey(meta.headers, meta.size), size: meta.size })),
      this.settings.concurrency,
    );
    const moves: Record<MessageOutcome, { uid: number; id: string }[]> = { processed: [], failed: [] };
    const mine: Claimed[] = [];
    for (const [i, claim] of results.entries()) {
      const meta = metas[i];
      if (claim === 'duplicate') {
        // a byte-identical copy of a message in this batch: it is moved once that one is staged
        this.leftBehind++;
        continue;
      }
      if (claim.kind === 'claimed') mine.push({ meta, row: claim.row, resumed: claim.resumed });
      else if (claim.kind === 'staged' && claim.move) moves[claim.row.outcome ?? 'failed'].push({ uid: meta.uid, id: claim.row.id });
      else {
        this.leftBehind++;
        this.log.debug({ uid: meta.uid, owner: claim.row.owner, state: claim.row.state }, 'mail message is in the hands of another poller');
      }
    }
    const prepared: { c: Claimed; p: Prepared }[] = [];
    const handle = async (c: Claimed, load: () => Promise<MessageContent | undefined>) => {
      try {
        const content = await load();
        if (!content) throw new Error('the message disappeared from the mailbox');
        prepared.push({ c, p: await this.intake.process(c.row, c.resumed, content) });
      } catch (err) {
        // this message only: keep it in the mailbox for the next drain, go on with the others
        this.stats.errors++;
        this.leftBehind++;
        this.log.error({ err, uid: c.meta.uid, mailMessage: c.row.id }, 'mail message could not be handed over; will retry');
        await this.intake.fail(c.row, err).catch(() => {});
      }
    };

    const small = mine.filter((c) => c.meta.size <= this.settings.maxMessageBytes);
    const large = mine.filter((c) => c.meta.size > this.settings.maxMessageBytes);
    for (const group of bySize(small, (c) => c.meta.size, FETCH_GROUP_BYTES)) {
      let sources: Map<number, Buffer>;
      try {
        sources = await session.fetchSources(group.map((c) => c.meta.uid));
      } catch (err) {
        await Promise.all(group.map((c) => this.intake.fail(c.row, err).catch(() => {})));
        throw err;
      }
      await mapLimit(group, this.settings.concurrency, (c) =>
        handle(c, async () => {
          const source = sources.get(c.meta.uid);
          return source && { kind: 'whole', source };
        }),
      );
    }
    for (const c of large) {
      if (this.stopping) {
        await this.intake.fail(c.row, new Error('poller stopping')).catch(() => {});
        continue;
      }
      await handle(c, () => this.loadParts(session, c.meta));
    }

    // every hand-over of the batch staged in one commit, then moved
    let staged: ProcessResult[];
    try {
      staged = await this.intake.stageAll(prepared.map((x) => x.p));
    } catch (err) {
      await Promise.all(prepared.map(({ c }) => this.intake.fail(c.row, err).catch(() => {})));
      throw err;
    }
    const uidOf = new Map(prepared.map(({ c, p }) => [p.result.id, c.meta.uid]));
    for (const result of staged) {
      const uid = uidOf.get(result.id)!;
      moves[result.outcome].push({ uid, id: result.id });
      if (result.outcome === 'processed') this.stats.processed++;
      else this.stats.failed++;
      this.emit('message', { uid, ...result });
    }
    this.leftBehind += prepared.length - staged.length;

    for (const outcome of ['processed', 'failed'] as const) {
      const list = moves[outcome];
      if (!list.length) continue;
      const gone = new Set(
        await session.move(
          list.map((m) => m.uid),
          outcome === 'processed' ? this.settings.processedMailbox : this.settings.failedMailbox,
        ),
      );
      const moved = list.filter((m) => gone.has(m.uid));
      await this.intake.markMoved(moved.map((m) => m.id));
      this.stats.moved += moved.length;
      // what did not move stays staged: the next drain moves it
      this.leftBehind += list.length - moved.length;
      if (moved.length < list.length) this.log.warn({ uids: list.filter((m) => !gone.has(m.uid)).map((m) => m.uid) }, 'some mail messages did not move; will retry');
    }
  }

  /** A message too large to download whole: fetch only the parts that are PDFs by their first bytes. */
  private async loadParts(session: MailboxSession, meta: MessageMeta): Promise<MessageContent | undefined> {
    const structure = await session.fetchStructure(meta.uid);
    if (!structure) return undefined;
    const candidates = candidateStructureParts(structure);
    const ids = candidates.map((p) => p.part);
    const [mimeHeaders, starts] = [await session.fetchPartHeaders(meta.uid, ids), await session.fetchPartStarts(meta.uid, ids, 2048)];
    const pdfs = candidates
      .filter((p) => isPdfBytes(decodePartStart(starts.get(p.part) ?? Buffer.alloc(0), p.encoding)))
      .map((p) => {
        const fields = headerFields((mimeHeaders.get(p.part) ?? Buffer.alloc(0)).toString('utf8'));
        const name = fileNameFromHeaders({ contentDisposition: fields.get('content-disposition')?.[0], contentType: fields.get('content-type')?.[0] });
        return { ...p, filename: name ?? p.filename };
      });
    const limit = maxEncodedSize(MAX_DOCUMENT_BYTES);
    const wanted = pdfs.filter((p) => p.size <= limit);
    const contents = await session.downloadParts(meta.uid, wanted.map((p) => p.part));
    const parts: MessagePart[] = wanted.map((p) => ({ filename: p.filename, contentType: p.type, content: contents.get(p.part) ?? Buffer.alloc(0) }));
    const skipped = pdfs.filter((p) => p.size > limit).map((p) => ({ filename: p.filename ?? `part-${p.part}.pdf`, size: p.size }));
    this.log.info({ uid: meta.uid, size: meta.size, parts: wanted.length, skipped: skipped.length }, 'large mail message: downloaded its PDF parts only');
    return { kind: 'parts', headers: meta.headers, parts, skipped };
  }
}
