// What the ftp and sftp roles build alike (kept apart from ftp-role.ts, which loads ftp-srv).
import type { Container } from './container.ts';
import { uploadKeyMode, type KeyScope } from '../domain/upload-keys.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import type { Logger } from '../platform/logger.ts';
import { LoginLockout } from '../channels/transfer/login-lockout.ts';
import { PreLoginGate } from '../channels/transfer/pre-login-gate.ts';
import type { TransferMetrics } from '../channels/transfer/transfer-metrics.ts';
import type { TransferChannel } from '../domain/channels.ts';

/**
 * A channel's receiver, counters and log, the login lockout FTP and SFTP share (failures on either
 * add up), and its limits before login (TRANSFER_*, the same settings, counted per protocol).
 */
/**
 * The FTP/FTPS/SFTP password check: the account's FTP user name with its live or test API key, or
 * with one of its upload keys (used from its networks). `address`: the client's.
 */
export const transferLogin =
  (c: Container, channel: TransferChannel) =>
  async (username: string, password: string, address: string | null): Promise<KeyScope | undefined> => {
    if (!uploadKeyMode(password)) {
      const scope = await c.accounts.authenticateFtp(username, password);
      if (scope) c.accounts.noteKeyUse(scope, channel, address);
      return scope;
    }
    const accountId = await c.accounts.ftpAccountId(username);
    return accountId ? c.uploadKeys.authenticateLogin(accountId, password, address, channel, c.announcements.cacheTrusted()) : undefined;
  };

/** A session's key checked again (at each FTP file): an API key or an upload key, from the node's cache while it hears revocations. */
export const sessionKey =
  (c: Container) =>
  (key: string): Promise<KeyScope | undefined> =>
    uploadKeyMode(key) ? c.uploadKeys.authenticate(key, c.announcements.cacheTrusted()) : c.accounts.authenticate(key, c.announcements.cacheTrusted());

/** The SFTP session's stamp: the API key's hash, or an upload key's id while it is active. */
export const sessionStamp =
  (c: Container) =>
  async (scope: KeyScope): Promise<string | undefined> => {
    const up = scope.uploadKey;
    if (!up) return c.accounts.keyStamp(scope);
    return (await c.uploadKeys.stillActive(up.id)) ? up.id : undefined;
  };

export function transferDeps(c: Container, receiver: IntakeReceiver, metrics: TransferMetrics, log: Logger) {
  const { config } = c;
  const lockout = new LoginLockout(c.redis, config.redisPrefix, { attempts: config.transferLockoutAttempts, lockoutMs: config.transferLockoutMs });
  const limits = {
    maxUnauthenticatedPerAddress: config.transferMaxUnauthenticatedPerAddress,
    connectionsPerMinutePerAddress: config.transferConnectionsPerMinutePerAddress,
    handshakeTimeoutMs: config.transferHandshakeTimeoutMs,
  };
  const gate = new PreLoginGate(metrics.protocol, limits, { log, metrics: c.metrics.transferLimits });
  return { receiver, lockout, metrics, log, gate };
}

/** Starts the channel; its readiness check fails while it is not listening (and while it drains at shutdown). */
export async function startListening(
  channel: { start(): Promise<void>; readonly ready: boolean },
  role: TransferChannel,
  readiness?: Map<string, ReadinessCheck>,
): Promise<void> {
  await channel.start();
  readiness?.set(role, async () => {
    if (!channel.ready) throw new Error(`${role.toUpperCase()} server not listening`);
  });
}
