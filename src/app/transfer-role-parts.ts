// What the ftp and sftp roles build alike (kept apart from ftp-role.ts, which loads ftp-srv).
import type { Container } from './container.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import type { Logger } from '../platform/logger.ts';
import { LoginLockout } from '../channels/transfer/login-lockout.ts';
import { PreLoginGate } from '../channels/transfer/pre-login-gate.ts';
import type { TransferMetrics } from '../channels/transfer/transfer-metrics.ts';

/**
 * A channel's receiver, counters and log, the login lockout FTP and SFTP share (failures on either
 * add up), and its limits before login (TRANSFER_*, the same settings, counted per protocol).
 */
export function transferDeps(c: Container, receiver: IntakeReceiver, metrics: TransferMetrics, log: Logger) {
  const { config } = c;
  const lockout = new LoginLockout(c.redis, config.redisPrefix, { attempts: config.ftpLockoutAttempts, lockoutMs: config.ftpLockoutMs });
  const limits = {
    maxUnauthenticatedPerAddress: config.transferMaxUnauthenticatedPerAddress,
    connectionsPerMinutePerAddress: config.transferConnectionsPerMinutePerAddress,
    handshakeTimeoutMs: config.transferHandshakeTimeoutMs,
  };
  const gate = new PreLoginGate(metrics.protocol, limits, { log, metrics: c.metrics.transferLimits });
  return { receiver, lockout, metrics, log, gate };
}

/** Starts the channel; its readiness check fails while it is not listening (and while it drains at shutdown). */
export async function startListening(channel: { start(): Promise<void>; readonly ready: boolean }, role: 'ftp' | 'sftp', readiness?: Map<string, ReadinessCheck>): Promise<void> {
  await channel.start();
  readiness?.set(role, async () => {
    if (!channel.ready) throw new Error(`${role.toUpperCase()} server not listening`);
  });
}
