// IMAP_URL -> connection settings. imap://user:pass@host:port/Mailbox (STARTTLS when the server
// offers it) or imaps://... (TLS from the first byte). The mailbox defaults to INBOX.

export interface ImapSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
  mailbox: string;
}

export function parseImapUrl(raw: string): ImapSettings {
  const u = new URL(raw);
  const secure = u.protocol === 'imaps:';
  if (!secure && u.protocol !== 'imap:') throw new Error(`IMAP_URL must use imap or imaps, got ${u.protocol}`);
  if (!u.hostname) throw new Error('IMAP_URL has no host');
  if (!u.username) throw new Error('IMAP_URL has no user name');
  const path = decodeURIComponent(u.pathname.replace(/^\/+/, '').replace(/\/+$/, ''));
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : secure ? 993 : 143,
    secure,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    mailbox: path || 'INBOX',
  };
}

/** The URL without its password, for logs. */
export function describeImapUrl(imap: ImapSettings): string {
  return `${imap.secure ? 'imaps' : 'imap'}://${imap.user}@${imap.host}:${imap.port}/${imap.mailbox}`;
}
