// The import mailbox the mail role polls (docs/mail.md), with a password or OAuth 2.0.
import { Type } from '../typebox.ts';
import { oneOf, setting, text, url } from '../setting-types.ts';

export const imap = Type.Object(
  {
    imapUrl: setting(url('imap', 'imaps'), {
      env: 'IMAP_URL',
      secret: true,
      example: 'imaps://user:password@imap.example.com/INBOX',
      doc: 'imap[s]://user:pass@host[:port]/Mailbox (imap://: STARTTLS when offered; the mailbox defaults to INBOX). The mail role runs when set.',
    }),
    imapAuth: setting(oneOf('password', 'xoauth2', 'oauthbearer'), {
      env: 'IMAP_AUTH',
      default: 'password',
      doc: 'password (in IMAP_URL), or xoauth2 (or oauthbearer): OAuth 2.0 bearer tokens instead of the password (docs/mail.md, "Microsoft 365 and Gmail").',
    }),
    imapOauthTokenUrl: setting(url('https', 'http'), {
      env: 'IMAP_OAUTH_TOKEN_URL',
      example: 'https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token',
      doc: "The token endpoint. Unset: from the tenant, or Google's with a refresh token.",
    }),
    imapOauthTenant: setting(text('tenant'), {
      env: 'IMAP_OAUTH_TENANT',
      example: 'contoso.onmicrosoft.com',
      doc: "Microsoft 365 tenant id or domain: the token endpoint is Microsoft's for it.",
    }),
    imapOauthClientId: setting(text('client id'), { env: 'IMAP_OAUTH_CLIENT_ID', doc: 'The application (client) id.' }),
    imapOauthClientSecret: setting(text('secret'), {
      env: 'IMAP_OAUTH_CLIENT_SECRET',
      secret: true,
      doc: "Its secret (client credentials; Google's refresh needs it too).",
    }),
    imapOauthClientCert: setting(text('file or PEM'), {
      env: 'IMAP_OAUTH_CLIENT_CERT',
      example: '/etc/invoice-intake/imap-app.crt',
      doc: 'A certificate (PEM text or a file path) instead of a secret; set with IMAP_OAUTH_CLIENT_KEY.',
    }),
    imapOauthClientKey: setting(text('file or PEM'), {
      env: 'IMAP_OAUTH_CLIENT_KEY',
      secret: true,
      example: '/etc/invoice-intake/imap-app.key',
      doc: 'The private key of IMAP_OAUTH_CLIENT_CERT (PEM text or a file path).',
    }),
    imapOauthRefreshToken: setting(text('token'), {
      env: 'IMAP_OAUTH_REFRESH_TOKEN',
      secret: true,
      doc: 'Set: the refresh-token flow (Gmail); unset: client credentials.',
    }),
    imapOauthScope: setting(text('scope'), {
      env: 'IMAP_OAUTH_SCOPE',
      example: 'https://outlook.office365.com/.default',
      doc: 'The scope asked for. Unset: https://outlook.office365.com/.default for client credentials, none for a refresh token.',
    }),
    imapAuthservId: setting(text('authserv-id'), {
      env: 'IMAP_AUTHSERV_ID',
      example: 'mx.example.com',
      doc: 'The authserv-id of the mailbox server\'s own Authentication-Results header (docs/mail.md, "Who sent it"). Unset: no such header is believed.',
    }),
  },
  { title: 'IMAP' },
);
