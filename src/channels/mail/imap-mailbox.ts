// The imapflow adapter: one connection with the import mailbox selected, and the few commands the
// poller needs. Every command runs under a deadline; a command that misses it closes the
// connection (a silently dead TCP connection otherwise hangs for minutes) and rejects.
import { ImapFlow, type MessageStructureObject } from 'imapflow';
import type { Logger } from '../../platform/logger.ts';
import { settledBefore } from '../../platform/timeouts.ts';
import type { ImapSettings } from './imap-url.ts';

export interface MessageMeta {
  uid: number;
  size: number;
  headers: Buffer;
}

export interface MailboxSessionOptions {
  /** mailboxes created when missing (Processed, Failed) */
  ensure: string[];
  idleDelayMs: number;
  commandTimeoutMs: number;
  log: Logger;
  /** an OAuth 2.0 bearer token instead of the password (imapflow: OAUTHBEARER when offered, else XOAUTH2) */
  accessToken?: string;
}

export interface MailboxSession {
  readonly mailbox: string;
  readonly uidValidity: number;
  /** whether the server offers IDLE (otherwise only polling finds new mail) */
  readonly idle: boolean;
  /** whether an IDLE command is waiting for new mail right now */
  idling(): boolean;
  /** resolves when the connection is gone, with the reason */
  readonly closed: Promise<Error>;
  onNewMail(fn: () => void): void;
  /** UIDs in the mailbox, ascending; only those above `above` when given */
  searchUids(above?: number): Promise<number[]>;
  fetchMeta(uids: number[]): Promise<MessageMeta[]>;
  fetchSources(uids: number[]): Promise<Map<number, Buffer>>;
  /** the body structure, file names decoded */
  fetchStructure(uid: number): Promise<MessageStructureObject | undefined>;
  /** the first `bytes` bytes of body parts as stored (transfer-encoded), by part id */
  fetchPartStarts(uid: number, parts: string[], bytes: number): Promise<Map<string, Buffer>>;
  /** decoded contents of body parts, by part id */
  downloadParts(uid: number, parts: string[]): Promise<Map<string, Buffer>>;
  /** moves messages; returns those that have left the mailbox (the others are still there) */
  move(uids: number[], mailbox: string): Promise<number[]>;
  /** a NOOP that must be answered within `timeoutMs` */
  ping(timeoutMs: number): Promise<void>;
  /** bytes read from the server so far (to prove large messages are not downloaded whole) */
  bytesReceived(): number;
  /** ms since the server last answered anything */
  quietFor(): number;
  close(): Promise<void>;
}

export async function openMailboxSession(imap: ImapSettings, options: MailboxSessionOptions): Promise<MailboxSession> {
  const client = new ImapFlow({
    host: imap.host,
    port: imap.port,
    secure: imap.secure,
    auth: options.accessToken ? { user: imap.user, accessToken: options.accessToken } : { user: imap.user, pass: imap.password },
    // biome-ignore lint/suspicious/noExplicitAny: imapflow's logger option is typed as its own interface; pino's child fits it
    logger: options.log.child({ component: 'imapflow' }, { level: 'warn' }) as any,
    autoIdleDelay: options.idleDelayMs,
    connectionTimeout: options.commandTimeoutMs,
    greetingTimeout: Math.min(options.commandTimeoutMs, 30_000),
    socketTimeout: Math.max(options.commandTimeoutMs * 2, 60_000),
    disableCompression: true,
  });
  let lastHeard = Date.now();
  let closeReason: Error | undefined;
  let resolveClosed: (e: Error) => void = () => {};
  const closed = new Promise<Error>((r) => (resolveClosed = r));
  const kill = (reason: Error) => {
    closeReason ??= reason;
    try {
      client.close();
    } catch {
      /* already closed */
    }
  };
  // imapflow: an error listener must exist before connect(), or an error event crashes the process
  client.on('error', (err: Error) => {
    closeReason ??= err;
  });
  client.on('close', () => resolveClosed(closeReason ?? new Error('IMAP connection closed')));
  client.on('response', () => {
    lastHeard = Date.now();
  });
  const newMail: (() => void)[] = [];
  client.on('exists', (ev) => {
    lastHeard = Date.now();
    // only one mailbox is ever selected; its path may be spelled differently (inbox / INBOX)
    if (ev.count > ev.prevCount) for (const fn of newMail) fn();
  });

  const guard = async <T>(what: string, command: Promise<T>, ms = options.commandTimeoutMs): Promise<T> => {
    if (!(await settledBefore(command, Date.now() + ms))) {
      const err = new Error(`IMAP ${what} got no answer within ${ms} ms`);
      kill(err);
      throw err;
    }
    try {
      const result = await command;
      lastHeard = Date.now();
      return result;
    } catch (e) {
      if (closeReason && e !== closeReason) throw Object.assign(new Error(`IMAP ${what} failed: ${closeReason.message}`), { cause: e });
      throw e;
    }
  };

  try {
    await guard('connect', client.connect());
    const existing = new Set((await guard('LIST', client.list())).map((m) => m.path));
    for (const name of options.ensure) {
      if (!existing.has(name)) {
        await guard('CREATE', client.mailboxCreate(name)).catch((err) => {
          // another poller may have created it in the meantime
          if (!/exists/i.test(String(err?.responseText ?? err?.message))) throw err;
        });
        options.log.info({ mailbox: name }, 'created missing mailbox');
      }
    }
    const box = await guard('SELECT', client.mailboxOpen(imap.mailbox));
    const session: MailboxSession = {
      mailbox: imap.mailbox,
      uidValidity: Number(box.uidValidity),
      idle: client.capabilities.has('IDLE'),
      idling: () => client.idling,
      closed,
      onNewMail: (fn) => newMail.push(fn),
      async searchUids(above) {
        const query = above ? { uid: `${above + 1}:*` } : { all: true };
        const found = await guard('SEARCH', client.search(query, { uid: true }));
        const uids = (found || []).filter((u) => !above || u > above);
        return uids.sort((a, b) => a - b);
      },
      async fetchMeta(uids) {
        if (!uids.length) return [];
        const msgs = await guard('FETCH', client.fetchAll(uids.join(','), { uid: true, size: true, headers: true }, { uid: true }));
        return msgs.filter((m) => m.headers).map((m) => ({ uid: m.uid, size: m.size ?? 0, headers: m.headers! }));
      },
      async fetchSources(uids) {
        const out = new Map<number, Buffer>();
        if (!uids.length) return out;
        const msgs = await guard('FETCH', client.fetchAll(uids.join(','), { uid: true, source: true }, { uid: true }));
        for (const m of msgs) if (m.source) out.set(m.uid, m.source);
        return out;
      },
      async fetchStructure(uid) {
        const m = await guard('FETCH', client.fetchOne(String(uid), { uid: true, bodyStructure: true }, { uid: true }));
        return m ? m.bodyStructure : undefined;
      },
      async fetchPartStarts(uid, parts, bytes) {
        const out = new Map<string, Buffer>();
        if (!parts.length) return out;
        const m = await guard('FETCH', client.fetchOne(String(uid), { uid: true, bodyParts: parts.map((key) => ({ key, maxLength: bytes })) }, { uid: true }));
        for (const [key, value] of m ? (m.bodyParts ?? new Map()) : []) out.set(key, value);
        return out;
      },
      async downloadParts(uid, parts) {
        const out = new Map<string, Buffer>();
        if (!parts.length) return out;
        const res = await guard('FETCH', client.downloadMany(String(uid), parts, { uid: true }));
        for (const [part, value] of Object.entries(res)) if (value?.content) out.set(part, value.content);
        return out;
      },
      async move(uids, mailbox) {
        let left = uids;
        // Dovecot answers OK but moves nothing when another session expunged one of the messages
        // since our last command: so look what is still here, and move that again.
        for (let attempt = 0; attempt < 3 && left.length; attempt++) {
          const res = await guard('MOVE', client.messageMove(left.join(','), mailbox, { uid: true }));
          if (!res) throw new Error(`IMAP MOVE to ${mailbox} failed`);
          // COPYUID (UIDPLUS) naming every message: all moved, nothing to check
          if (res.uidMap && left.every((u) => res.uidMap!.has(u))) return uids;
          await guard('NOOP', client.noop());
          left = (await guard('SEARCH', client.search({ uid: left.join(',') }, { uid: true }))) || [];
        }
        const stayed = new Set(left);
        return uids.filter((u) => !stayed.has(u));
      },
      async ping(timeoutMs) {
        await guard('NOOP', client.noop(), timeoutMs);
      },
      quietFor: () => Date.now() - lastHeard,
      bytesReceived: () => client.stats().received,
      async close() {
        if (client.usable) await guard('LOGOUT', client.logout(), 5000).catch(() => kill(new Error('closed')));
        kill(new Error('closed'));
      },
    };
    return session;
  } catch (e) {
    kill(e as Error);
    throw e;
  }
}
