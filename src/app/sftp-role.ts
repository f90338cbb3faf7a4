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
  opts: {
    readiness?: Map<string, ReadinessCheck>;
    metrics: TransferMetrics /** being made or read already (start-service.ts); else read (or made) here */;
    hostKeys?: Promise<HostKeys>;
  },
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
      maxConnectionsPerAccount: config.transferMaxConnectionsPerAccount,
      listLimit: config.transferListLimit,
      maxArchiveBytes: config.zipMaxTotalBytes,
      tempUploadHoldMs: config.transferTempUploadHoldMs,
    },
    {
      accounts: {
        authenticatePassword: transferLogin(c, 'sftp'),
        // an upload key's SSH key (issue 44): that key's scope, from its networks only
        authenticatePublicKey: async (user, blob, address) => {
          const found = await c.sshKeys.findForLogin(user, blob);
          const up = found?.scope.uploadKey;
          return up && !c.uploadKeys.allows(up, address) ? undefined : found;
        },
        publicKeyLogin: (scope, address) => {
          if (scope.uploadKey) c.uploadKeys.noteUse(scope.uploadKey, address, 'sftp');
        },
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
