// The `sftp` role: the SFTP channel built from the validated configuration, feeding `receiver`.
// With transfer-role-parts.ts the only file of the channel that knows the container: it picks the
// narrow ports out of it.
import type { Container } from './container.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import type { TransferMetrics } from '../channels/transfer/transfer-metrics.ts';
import { sessionStamp, startListening, transferDeps, transferLogin } from './transfer-role-parts.ts';
import { ensureHostKeys, type HostKeys } from '../channels/sftp/host-keys.ts';
import { SftpChannel } from '../channels/sftp/sftp-channel.ts';

export async function startSftpRole(
  c: Container,
  receiver: IntakeReceiver,
  opts: { readiness?: Map<string, ReadinessCheck>; metrics: TransferMetrics; /** being made or read already (start-service.ts); else read (or made) here */ hostKeys?: Promise<HostKeys> },
): Promise<SftpChannel> {
  const { config } = c;
  const log = c.log.child({ role: 'sftp' });
  const hostKeys = await (opts.hostKeys ?? ensureHostKeys({ dataDir: config.dataDir, hostKey: config.sftpHostKey }));
  const channel = new SftpChannel(
    {
      host: config.sftpHost,
      port: config.sftpPort,
      hostKeys: hostKeys.keys,
      idleTimeoutMs: config.sftpIdleTimeoutMs,
      maxConnections: config.sftpMaxConnections,
      maxConnectionsPerAccount: config.ftpMaxConnectionsPerAccount,
      listLimit: config.ftpListLimit,
      maxArchiveBytes: config.zipMaxTotalBytes,
      tempUploadHoldMs: config.ftpTempUploadHoldMs,
    },
    {
      accounts: {
        authenticatePassword: transferLogin(c, 'sftp'),
        authenticatePublicKey: (user, blob) => c.sshKeys.findForLogin(user, blob),
        keyStamp: sessionStamp(c),
        sshKeyRegistered: (id) => c.sshKeys.stillRegistered(id),
      },
      ...transferDeps(c, receiver, opts.metrics, log),
    },
  );
  await startListening(channel, 'sftp', opts.readiness);
  log.info({ url: channel.url, hostKeys: hostKeys.fingerprints, source: hostKeys.source }, 'sftp listening');
  return channel;
}
