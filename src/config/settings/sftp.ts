// The SFTP listener (docs/sftp.md). Logins, lockout and per-account limits: transfer.ts.
import { Type } from '../typebox.ts';
import { setting, text, whole } from '../setting-types.ts';

export const sftp = Type.Object(
  {
    sftpPort: setting(whole(0, 65535), { env: 'SFTP_PORT', default: '2222', doc: 'The SFTP port.' }),
    sftpHost: setting(text('address'), { env: 'SFTP_HOST', default: '0.0.0.0', doc: 'The address SFTP listens on.' }),
    sftpHostKey: setting(text('file or PEM'), {
      env: 'SFTP_HOST_KEY',
      secret: true,
      example: '/etc/invoice-intake/ssh_host_ed25519_key',
      doc: 'A private host key file (or its PEM text). Unset: Ed25519 + RSA keys made once in DATA_DIR/sftp; set it on every node when roles are split.',
    }),
    sftpIdleTimeoutMs: setting(whole(1000), {
      env: 'SFTP_IDLE_TIMEOUT_MS',
      default: '300000',
      doc: 'Idle sessions are closed (unauthenticated ones after at most 60 s; TRANSFER_HANDSHAKE_TIMEOUT_MS bounds the time from the TCP connection to a completed authentication).',
    }),
    sftpMaxConnections: setting(whole(1), { env: 'SFTP_MAX_CONNECTIONS', default: '200', doc: 'SFTP connections per node.' }),
  },
  { title: 'SFTP' },
);
