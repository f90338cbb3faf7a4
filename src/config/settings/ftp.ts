// The FTP and FTPS listener (docs/ftp.md). Logins, lockout and per-account limits: transfer.ts.
import { Type } from '../typebox.ts';
import { flag, portRange, setting, text, whole } from '../setting-types.ts';

export const ftp = Type.Object(
  {
    ftpPort: setting(whole(0, 65535), { env: 'FTP_PORT', default: '2121', doc: 'The FTP control port (explicit FTPS, AUTH TLS, on the same port).' }),
    ftpHost: setting(text('address'), { env: 'FTP_HOST', default: '0.0.0.0', doc: 'The address the control and passive ports listen on.' }),
    ftpPublicHost: setting(text('host name'), {
      env: 'FTP_PUBLIC_HOST',
      example: 'ftp.example.com',
      doc: "The FTP host name shown to account holders (GET /v2/account, dashboard). Unset: PUBLIC_URL's host.",
    }),
    ftpPasvUrl: setting(text('address'), {
      env: 'FTP_PASV_URL',
      default: '127.0.0.1',
      doc: 'The IPv4 address PASV announces: the public address clients reach (a host name is resolved once at start). Clients on the loopback get the address they connected to; EPSV announces only a port.',
    }),
    ftpPasvRange: setting(portRange(), {
      env: 'FTP_PASV_RANGE',
      default: '30000-30100',
      doc: 'Passive data ports; open them in the firewall. Each transfer holds one port for its duration.',
    }),
    ftpRequireTls: setting(flag(), {
      env: 'FTP_REQUIRE_TLS',
      doc: 'Refuse USER/PASS before AUTH TLS. Unset: true with a certificate (TLS_CERT), unless FTP_ALLOW_PLAIN=true.',
    }),
    ftpsImplicitPort: setting(whole(0, 65535), {
      env: 'FTPS_IMPLICIT_PORT',
      example: '990',
      doc: 'Implicit FTPS (TLS from the first byte) on this port too (990 is the usual one), with the same certificate, rules and passive range. Unset: off.',
    }),
    ftpSelfSignedCert: setting(flag(), {
      env: 'FTP_SELF_SIGNED_CERT',
      default: 'true',
      doc: 'Without TLS_CERT, a self-signed certificate in DATA_DIR lets FTPS work out of the box.',
    }),
    ftpAllowPlain: setting(flag(), {
      env: 'FTP_ALLOW_PLAIN',
      default: 'false',
      doc: 'Allow logins without TLS, with network-limited upload keys only (the API key needs FTPS).',
    }),
    ftpIdleTimeoutMs: setting(whole(1000), {
      env: 'FTP_IDLE_TIMEOUT_MS',
      default: '300000',
      doc: 'A session without commands (and without a transfer) is closed with 421; before login at most 60 s between commands, and TRANSFER_HANDSHAKE_TIMEOUT_MS from the connection to the login in all.',
    }),
    ftpTransferTimeoutMs: setting(whole(1000), {
      env: 'FTP_TRANSFER_TIMEOUT_MS',
      default: '60000',
      doc: 'An upload that sends no byte for this long is aborted with 426.',
    }),
    ftpMaxConnections: setting(whole(1), { env: 'FTP_MAX_CONNECTIONS', default: '200', doc: 'Control connections per FTP node; more get 421 at once.' }),
  },
  { title: 'FTP and FTPS' },
);
