// A throwaway Dovecot (one per mail test file, or for the mail benchmark): its own config, maildir and passwd file in a temp dir,
// listening on a free port on 127.0.0.1, stopped and removed again by stop().
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { freePort } from './ports.ts';
import { pollFor } from './wait.ts';

export interface DovecotOptions {
  /** advertise no IDLE capability, so clients must poll */
  noIdle?: boolean;
  user?: string;
  password?: string;
  /**
   * OAuth 2.0 logins besides the password: the oauth2 passdb checks each bearer token at this
   * introspection URL (RFC 7662 style, POST token=...; the answer names the user and `active`)
   */
  oauth2?: { introspectionUrl: string; mechanisms: ('xoauth2' | 'oauthbearer')[] };
}

export interface Dovecot {
  /** the master process (imap processes are its children) */
  pid: number;
  host: string;
  port: number;
  user: string;
  password: string;
  dir: string;
  /** imap://user:pass@host:port/<mailbox> */
  url(mailbox?: string): string;
  /** a connected client for the test's own use (closed by stop()) */
  client(): Promise<ImapFlow>;
  /** builds the message with nodemailer's MailComposer and appends it to the mailbox */
  append(mail: Mail.Options, mailbox?: string): Promise<Buffer>;
  appendRaw(raw: Buffer, mailbox?: string): Promise<void>;
  /** UIDs (ascending) of the messages in a mailbox; [] when it does not exist */
  uids(mailbox: string): Promise<number[]>;
  count(mailbox: string): Promise<number>;
  /** raw sources of the messages in a mailbox */
  sources(mailbox: string): Promise<Buffer[]>;
  /** stops the server (its connections drop), keeping its port, mail and config for resume() */
  halt(): Promise<void>;
  /** starts it again on the same port with the same mail */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

async function waitForPort(port: number, child: ChildProcess, logFile: string, timeoutMs = 10_000): Promise<void> {
  // an exited child ends the wait at once
  if (
    await pollFor(
      async () => child.exitCode === null && (await accepts(port)),
      (open) => open || child.exitCode !== null,
      { ms: timeoutMs, everyMs: 20 },
    )
  )
    return;
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
  throw new Error(`dovecot did not open port ${port} (exit ${child.exitCode}):\n${log}`);
}

function configText(dir: string, port: number, opts: DovecotOptions): string {
  return `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
mail_location = maildir:${dir}/mail/%u
mail_fsync = never
${
  opts.oauth2
    ? `auth_mechanisms = plain login ${opts.oauth2.mechanisms.join(' ')}
auth_verbose = yes
passdb {
  driver = oauth2
  mechanisms = ${opts.oauth2.mechanisms.join(' ')}
  args = ${dir}/oauth2.conf.ext
}`
    : ''
}
${opts.noIdle ? 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE SORT THREAD=REFERENCES MULTIAPPEND UIDPLUS CHILDREN NAMESPACE UNSELECT MOVE' : ''}
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = passwd-file
  args = ${dir}/passwd
}
service imap-login {
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`;
}

export async function startDovecot(opts: DovecotOptions = {}): Promise<Dovecot> {
  const user = opts.user ?? 'importer';
  const password = opts.password ?? `pw${Math.random().toString(36).slice(2)}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-dovecot-'));
  fs.chmodSync(dir, 0o755); // the dovecot user must traverse it, or every login fails
  fs.mkdirSync(path.join(dir, 'mail'));
  fs.chownSync(path.join(dir, 'mail'), 65534, 65534);
  fs.writeFileSync(path.join(dir, 'passwd'), `${user}:{PLAIN}${password}:65534:65534::${dir}/mail/${user}::\n`);
  const logFile = path.join(dir, 'dovecot.log');
  if (opts.oauth2) {
    fs.writeFileSync(
      path.join(dir, 'oauth2.conf.ext'),
      `introspection_mode = post\nintrospection_url = ${opts.oauth2.introspectionUrl}\nforce_introspection = yes\nusername_attribute = username\nactive_attribute = active\nactive_value = true\n`,
    );
  }

  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    fs.writeFileSync(path.join(dir, 'dovecot.conf'), configText(dir, port, opts));
    const c = spawn('dovecot', ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: 'ignore' });
    try {
      await waitForPort(port, c, logFile);
      child = c;
    } catch (e) {
      c.kill('SIGKILL');
      if (attempt === 4) throw e;
    }
  }

  const clients: ImapFlow[] = [];
  const client = async () => {
    const c = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false, disableAutoIdle: true });
    c.on('error', () => {});
    await c.connect();
    clients.push(c);
    return c;
  };
  let shared: ImapFlow | undefined;
  const admin = async () => {
    if (!shared?.usable) shared = await client();
    return shared;
  };
  const ensureMailbox = async (c: ImapFlow, mailbox: string) => {
    if (mailbox.toUpperCase() === 'INBOX') return;
    const list = await c.list();
    if (!list.some((m) => m.path === mailbox)) await c.mailboxCreate(mailbox);
  };

  const terminate = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await exited;
    }
  };
  const d: Dovecot = {
    pid: child!.pid!,
    host: '127.0.0.1',
    port,
    user,
    password,
    dir,
    url: (mailbox = 'INBOX') => `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(mailbox)}`,
    client,
    async append(mail, mailbox = 'INBOX') {
      const raw = await new MailComposer(mail).compile().build();
      await d.appendRaw(raw, mailbox);
      return raw;
    },
    async appendRaw(raw, mailbox = 'INBOX') {
      const c = await admin();
      await ensureMailbox(c, mailbox);
      const res = await c.append(mailbox, raw);
      if (!res) throw new Error(`append to ${mailbox} failed`);
    },
    async uids(mailbox) {
      const c = await admin();
      const list = await c.list();
      if (!list.some((m) => m.path === mailbox)) return [];
      await c.mailboxOpen(mailbox); // a fresh SELECT: the mailbox may have been recreated
      const found = await c.search({ all: true }, { uid: true });
      await c.mailboxClose(); // STATUS on a selected mailbox answers from this session's stale view
      return (found || []).sort((a, b) => a - b);
    },
    async count(mailbox) {
      const c = await admin();
      const list = await c.list();
      if (!list.some((m) => m.path === mailbox)) return 0;
      const st = await c.status(mailbox, { messages: true });
      return st ? (st.messages ?? 0) : 0;
    },
    async sources(mailbox) {
      const c = await admin();
      if ((await d.count(mailbox)) === 0) return [];
      await c.mailboxOpen(mailbox); // a fresh SELECT sees every message that arrived meanwhile
      const msgs = await c.fetchAll('1:*', { uid: true, source: true });
      await c.mailboxClose();
      return msgs.map((m) => m.source!).filter(Boolean);
    },
    async halt() {
      await terminate();
    },
    async resume() {
      if (child && child.exitCode === null) return;
      const c = spawn('dovecot', ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: 'ignore' });
      await waitForPort(port, c, logFile);
      child = c;
      d.pid = c.pid!;
    },
    async stop() {
      for (const c of clients) {
        try {
          c.close();
        } catch {
          /* already closed */
        }
      }
      await terminate();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return d;
}
