// One batch of the import mailbox, start to end: claim the messages, download them (a large one
// only its PDF parts), hand their files to the intake pipeline, stage the batch in one commit,
// then move each message to Processed, Failed or (automatic mail) Automatic. A message that fails stays in the mailbox for
// the next drain; the others go on.
import pMap from 'p-map';
import type { Logger } from '../../platform/logger.ts';
import type { MailboxSession, MessageMeta } from './imap-mailbox.ts';
import type { MailIntake } from './mail-intake.ts';
import type { MessageContent, PlannedMessage, ProcessResult } from './mail-intake-types.ts';
import type { PollerSettings, PollerStats } from './mail-poller.ts';
import type { MessageOutcome, MessageRow } from './mail-message-rows.ts';
import { loadPdfParts } from './large-message-parts.ts';
import { messageKey } from './message-key.ts';

export interface BatchContext {
  session: MailboxSession;
  intake: MailIntake;
  settings: PollerSettings;
  stats: PollerStats;
  log: Logger;
  stopping: () => boolean;
  /** the highest UID the mailbox is known to have (noted with moved messages: see claim()) */
  topUid: number;
  onStaged: (message: { uid: number } & ProcessResult) => void;
}

type ClaimedMessage = { meta: MessageMeta; row: MessageRow; resumed: boolean };

/** Groups items so that each group's total size stays under `maxBytes` (a bigger item goes alone). */
function bySize<T>(items: T[], size: (t: T) => number, maxBytes: number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let total = 0;
  for (const item of items) {
    if (group.length && total + size(item) > maxBytes) {
      groups.push(group);
      group = [];
      total = 0;
    }
    group.push(item);
    total += size(item);
  }
  if (group.length) groups.push(group);
  return groups;
}

const FETCH_GROUP_BYTES = 32 * 1024 * 1024;

/** Drains the messages `uids`; returns how many it left in the mailbox (held by another poller, or failed). */
export async function drainBatch(ctx: BatchContext, uids: number[]): Promise<number> {
  const { session, intake, settings, stats, log } = ctx;
  let leftBehind = 0;
  const metas = await session.fetchMeta(uids);
  const claims = await intake.claimBatch(
    metas.map((meta) => ({ uidvalidity: session.uidValidity, uid: meta.uid, key: messageKey(meta.headers, meta.size), size: meta.size })),
    settings.concurrency,
  );
  const moves: Record<MessageOutcome, { uid: number; id: string }[]> = { processed: [], failed: [], ignored: [] };
  const claimedHere: ClaimedMessage[] = [];
  for (const [i, claim] of claims.entries()) {
    const meta = metas[i];
    if (claim === 'duplicate') {
      // a byte-identical copy of a message in this batch: it is moved once that one is staged
      leftBehind++;
      continue;
    }
    if (claim.kind === 'claimed') {
      claimedHere.push({ meta, row: claim.row, resumed: claim.resumed });
      if (claim.again)
        log.info(
          { uid: meta.uid, mailMessage: claim.row.id, previously: claim.again },
          'mail message is back in the mailbox after it was set aside: processing it again',
        );
    } else if (claim.kind === 'staged' && claim.move) moves[claim.row.outcome ?? 'failed'].push({ uid: meta.uid, id: claim.row.id });
    else {
      leftBehind++;
      log.debug({ uid: meta.uid, owner: claim.row.owner, state: claim.row.state }, 'mail message is in the hands of another poller');
    }
  }
  const prepared: { message: ClaimedMessage; planned: PlannedMessage }[] = [];
  const plan = async (message: ClaimedMessage, load: () => Promise<MessageContent | undefined>) => {
    try {
      const content = await load();
      if (!content) throw new Error('the message disappeared from the mailbox');
      prepared.push({ message, planned: await intake.process(message.row, message.resumed, content) });
    } catch (err) {
      // this message only: keep it in the mailbox for the next drain, go on with the others
      stats.errors++;
      leftBehind++;
      log.error({ err, uid: message.meta.uid, mailMessage: message.row.id }, 'mail message could not be staged; will retry');
      await intake.fail(message.row, err).catch(() => {});
    }
  };
  const failAll = (list: ClaimedMessage[], err: unknown) => Promise.all(list.map((m) => intake.fail(m.row, err).catch(() => {})));

  const small = claimedHere.filter((m) => m.meta.size <= settings.maxMessageBytes);
  const large = claimedHere.filter((m) => m.meta.size > settings.maxMessageBytes);
  for (const group of bySize(small, (m) => m.meta.size, FETCH_GROUP_BYTES)) {
    let sources: Map<number, Buffer>;
    try {
      sources = await session.fetchSources(group.map((m) => m.meta.uid));
    } catch (err) {
      await failAll(group, err);
      throw err;
    }
    await pMap(
      group,
      (m) =>
        plan(m, async () => {
          const source = sources.get(m.meta.uid);
          return source && { kind: 'whole', source };
        }),
      { concurrency: settings.concurrency },
    );
  }
  for (const m of large) {
    if (ctx.stopping()) await intake.fail(m.row, new Error('poller stopping')).catch(() => {});
    else await plan(m, () => loadPdfParts(session, m.meta, log, settings.maxArchiveBytes));
  }

  // every hand-over of the batch staged in one commit, then moved
  let staged: ProcessResult[];
  try {
    staged = await intake.stageAll(prepared.map((x) => x.planned));
  } catch (err) {
    await failAll(
      prepared.map((x) => x.message),
      err,
    );
    throw err;
  }
  const uidOf = new Map(prepared.map(({ message, planned }) => [planned.result.id, message.meta.uid]));
  for (const result of staged) {
    const uid = uidOf.get(result.id)!;
    moves[result.outcome].push({ uid, id: result.id });
    stats[result.outcome]++;
    ctx.onStaged({ uid, ...result });
  }
  leftBehind += prepared.length - staged.length;

  const targets: Record<MessageOutcome, string> = {
    processed: settings.processedMailbox,
    failed: settings.failedMailbox,
    ignored: settings.automaticMailbox ?? settings.processedMailbox,
  };
  for (const outcome of ['processed', 'failed', 'ignored'] as const) {
    const list = moves[outcome];
    if (!list.length) continue;
    const target = targets[outcome];
    const gone = new Set(
      await session.move(
        list.map((m) => m.uid),
        target,
      ),
    );
    const moved = list.filter((m) => gone.has(m.uid));
    await intake.markMoved(
      moved.map((m) => m.id),
      ctx.topUid,
    );
    stats.moved += moved.length;
    // what did not move stays staged: the next drain moves it
    leftBehind += list.length - moved.length;
    if (moved.length < list.length) log.warn({ uids: list.filter((m) => !gone.has(m.uid)).map((m) => m.uid) }, 'some mail messages did not move; will retry');
  }
  return leftBehind;
}
