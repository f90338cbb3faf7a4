import { describe, expect, it } from 'vitest';
import { describeImapUrl, parseImapUrl } from '../../src/channels/mail/imap-url.ts';
import { checkMailConfig } from '../../src/app/mail-role.ts';
import { reconnectDelay } from '../../src/channels/mail/mail-poller.ts';
import { headerBlock, messageKey } from '../../src/channels/mail/message-key.ts';
import { loadConfig } from '../../src/config/config.ts';

describe('IMAP_URL', () => {
  it('reads host, port, TLS, user, password and mailbox, with defaults', () => {
    expect(parseImapUrl('imaps://importer%40example.com:p%40ss%2Fw@mail.example.com/Invoices%2FIn')).toEqual({
      host: 'mail.example.com',
      port: 993,
      secure: true,
      user: 'importer@example.com',
      password: 'p@ss/w',
      mailbox: 'Invoices/In',
    });
    expect(parseImapUrl('imap://u:p@127.0.0.1:1143')).toMatchObject({ port: 1143, secure: false, mailbox: 'INBOX' });
    expect(parseImapUrl('imap://u:p@[::1]/')).toMatchObject({ host: '::1', port: 143 });
  });

  it('refuses other schemes and a missing user; never shows the password', () => {
    expect(() => parseImapUrl('http://u:p@h/')).toThrow(/imap or imaps/);
    expect(() => parseImapUrl('imap://h/')).toThrow(/user/);
    expect(describeImapUrl(parseImapUrl('imap://u:secret@h/INBOX'))).toBe('imap://u@h:143/INBOX');
  });

  it('is checked with the other mail settings at start-up, and again by a mail role given settings of its own', () => {
    expect(() => loadConfig({ IMAP_URL: 'imap://u:p@h/Processed', MAIL_PROCESSED_MAILBOX: 'Processed' })).toThrow(
      /MAIL_PROCESSED_MAILBOX must differ from the mailbox in IMAP_URL \(Processed\)/,
    );
    expect(() =>
      loadConfig({
        IMAP_URL: 'imaps://u@h/In%2FBox',
        IMAP_AUTH: 'xoauth2',
        MAIL_RECONNECT_MIN_MS: '5000',
        MAIL_RECONNECT_MAX_MS: '1000',
        IMAP_OAUTH_CLIENT_CERT: '/c.pem',
      }),
    ).toThrow(
      /MAIL_RECONNECT_MIN_MS must not exceed[\s\S]*needs IMAP_OAUTH_CLIENT_ID[\s\S]*IMAP_OAUTH_CLIENT_CERT and IMAP_OAUTH_CLIENT_KEY must be set together[\s\S]*needs IMAP_OAUTH_TENANT/,
    );
    expect(loadConfig({ IMAP_URL: 'imaps://u@h/INBOX', IMAP_AUTH: 'xoauth2', IMAP_OAUTH_CLIENT_ID: 'app', IMAP_OAUTH_REFRESH_TOKEN: 'r' }).imapAuth).toBe(
      'xoauth2',
    );
    const config = { ...loadConfig({}), imapUrl: 'imap://u:p@h/Processed' };
    expect(() => checkMailConfig(config)).toThrow(/MAIL_PROCESSED_MAILBOX must differ/);
    expect(() => loadConfig({ MAIL_REPLY_LIMIT_PER_HOUR: 'many' })).toThrow(/MAIL_REPLY_LIMIT_PER_HOUR/);
    expect(loadConfig({})).toMatchObject({ mailProcessedMailbox: 'Processed', mailFailedMailbox: 'Failed', mailReplyLimitPerHour: 5 });
  });
});

describe('reconnect backoff', () => {
  it('doubles from the minimum up to the maximum, with jitter of at most 20 %', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 10].map((a) => reconnectDelay(a, 1000, 30_000, mid))).toEqual([1000, 2000, 4000, 8000, 30_000]);
    expect(reconnectDelay(0, 1000, 30_000, () => 0)).toBe(800);
    expect(reconnectDelay(0, 1000, 30_000, () => 0.999)).toBeLessThanOrEqual(1200);
    expect(reconnectDelay(1000, 1000, 30_000, mid)).toBe(30_000);
  });
});

describe('message key', () => {
  const raw = Buffer.from('Message-ID: <a@b>\r\nSubject: x\r\n\r\nbody\r\n\r\nmore');
  it('is the hash of the header block (through the blank line) and the size', () => {
    expect(headerBlock(raw).toString()).toBe('Message-ID: <a@b>\r\nSubject: x\r\n\r\n');
    expect(headerBlock(Buffer.from('A: 1\n\nbody')).toString()).toBe('A: 1\n\n');
    expect(messageKey(headerBlock(raw), raw.length)).toBe(messageKey(Buffer.from('Message-ID: <a@b>\r\nSubject: x\r\n\r\n'), raw.length));
    expect(messageKey(headerBlock(raw), raw.length)).not.toBe(messageKey(headerBlock(raw), raw.length + 1));
    expect(messageKey(Buffer.from('Message-ID: <a@b>\r\nSubject: y\r\n\r\n'), raw.length)).not.toBe(messageKey(headerBlock(raw), raw.length));
  });
});
