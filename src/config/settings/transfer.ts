// FTP, FTPS and SFTP alike: logins, lockout, per-account limits, listings, temporary uploads, and
// the limits before login. The FTP_ names these had before SFTP shared them still work (aliases).
import { Type } from '../typebox.ts';
import { setting, whole } from '../setting-types.ts';

export const transfer = Type.Object(
  {
    transferLockoutAttempts: setting(whole(1), {
      env: 'TRANSFER_LOCKOUT_ATTEMPTS',
      aliases: ['FTP_LOCKOUT_ATTEMPTS'],
      default: '5',
      doc: 'Failed logins (per address, per user) that lock it, FTP, FTPS and SFTP together.',
    }),
    transferLockoutMs: setting(whole(1000), {
      env: 'TRANSFER_LOCKOUT_MS',
      aliases: ['FTP_LOCKOUT_MS'],
      default: '900000',
      doc: 'The failure window and the lockout time (15 min).',
    }),
    transferMaxConnectionsPerAccount: setting(whole(1), {
      env: 'TRANSFER_MAX_CONNECTIONS_PER_ACCOUNT',
      aliases: ['FTP_MAX_CONNECTIONS_PER_ACCOUNT'],
      default: '16',
      doc: 'Logged-in sessions per account (live and test together) per FTP or SFTP node; more are refused at login (FTP: 421).',
    }),
    transferListLimit: setting(whole(1, 10_000), {
      env: 'TRANSFER_LIST_LIMIT',
      aliases: ['FTP_LIST_LIMIT'],
      default: '200',
      doc: 'How many recent uploads a listing (FTP LIST, SFTP readdir) shows.',
    }),
    transferTempUploadHoldMs: setting(whole(1000), {
      env: 'TRANSFER_TEMP_UPLOAD_HOLD_MS',
      aliases: ['FTP_TEMP_UPLOAD_HOLD_MS'],
      default: '600000',
      doc: 'How long a temporary upload (x.pdf.part, x.pdf.filepart) waits for its rename, from any session of its account and mode (in memory on the database store, in the store on another: shorter than DOCUMENT_SWEEP_GRACE_HOURS).',
    }),
    transferMaxUnauthenticatedPerAddress: setting(whole(1, 10_000), {
      env: 'TRANSFER_MAX_UNAUTHENTICATED_PER_ADDRESS',
      default: '20',
      doc: 'Connections of one address not logged in yet, at once (docs/operations.md, "Limits before login"): a tenth of the default global caps, above TRANSFER_MAX_CONNECTIONS_PER_ACCOUNT, so that a client opening its account\'s share in parallel is never turned away.',
    }),
    transferConnectionsPerMinutePerAddress: setting(whole(1, 100_000), {
      env: 'TRANSFER_CONNECTIONS_PER_MINUTE_PER_ADDRESS',
      default: '60',
      doc: 'New connections of one address per minute (a token bucket refilled evenly over the minute); a connection that logs in gives its token back, so a client that connects once per file is never slowed: the budget is spent by connections that never log in.',
    }),
    transferHandshakeTimeoutMs: setting(whole(100, 600_000), {
      env: 'TRANSFER_HANDSHAKE_TIMEOUT_MS',
      default: '30000',
      doc: 'From the TCP connection to a completed login: TLS handshake (implicit FTPS, AUTH TLS), USER/PASS, the SSH identification line, key exchange and authentication all count. Then FTP answers 421 and closes; SSH closes the socket.',
    }),
  },
  {
    title: 'FTP and SFTP',
    description: 'Shared by FTP, FTPS and SFTP (docs/ftp.md, docs/sftp.md). The old FTP_ names still work; the TRANSFER_ name wins when both are set.',
  },
);
