// The `ftp` role: the FTP channel built from the validated configuration, feeding `receiver`.
import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';
import type { Container } from './container.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import { FtpChannel } from '../channels/ftp/ftp-channel.ts';
import type { TransferMetrics } from '../channels/transfer/transfer-metrics.ts';
import { ftpTlsPolicy } from '../channels/ftp/ftp-tls-policy.ts';
import { sessionKey, startListening, transferDeps, transferLogin } from './transfer-role-parts.ts';
import { ensureSelfSignedCert } from '../channels/ftp/self-signed-cert.ts';

/** PASV answers with an IPv4 address (ftp-srv needs an IP): a host name is resolved once at start. */
async function resolvePasvAddress(value: string): Promise<string> {
  if (net.isIPv4(value)) return value;
  try {
    return (await lookup(value, { family: 4 })).address;
  } catch {
    throw new Error(`FTP_PASV_URL must be an IPv4 address or a resolvable host name, got "${value}"`);
  }
}

/**
 * Starts the FTP server, or logs why it cannot run (no TLS and plain FTP not allowed) and returns
 * undefined: the other roles of the process keep running.
 */
export async function startFtpRole(
  c: Container,
  receiver: IntakeReceiver,
  opts: { readiness?: Map<string, ReadinessCheck>; metrics: TransferMetrics },
): Promise<FtpChannel | undefined> {
  const { config } = c;
  const log = c.log.child({ role: 'ftp' });
  let files = config.tlsCert && config.tlsKey ? { cert: config.tlsCert, key: config.tlsKey } : undefined;
  if (!files && !config.ftpAllowPlain && config.ftpSelfSignedCert) {
    try {
      files = await ensureSelfSignedCert(config.dataDir);
      log.warn({ cert: files.cert }, 'no TLS_CERT/TLS_KEY: FTPS uses a self-signed certificate (clients must accept it)');
    } catch (err) {
      log.error({ err: (err as Error).message }, 'could not make a self-signed certificate for FTPS');
    }
  }
  const policy = ftpTlsPolicy({ hasCertificate: Boolean(files), requireTls: config.ftpRequireTls, allowPlain: config.ftpAllowPlain });
  if (!policy.ok) {
    log.error({ problem: policy.problem }, 'ftp role not started');
    return undefined;
  }
  const tls = files ? { cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key) } : undefined;
  if (config.ftpsImplicitPort !== undefined && !tls) log.error({ port: config.ftpsImplicitPort }, 'implicit FTPS not started: it needs TLS_CERT and TLS_KEY');
  const channel = new FtpChannel(
    {
      host: config.ftpHost,
      port: config.ftpPort,
      pasvAddress: await resolvePasvAddress(config.ftpPasvUrl),
      pasvRange: config.ftpPasvRange,
      tls,
      requireTls: policy.requireTls,
      implicitPort: config.ftpsImplicitPort,
      idleTimeoutMs: config.ftpIdleTimeoutMs,
      transferTimeoutMs: config.ftpTransferTimeoutMs,
      maxConnections: config.ftpMaxConnections,
      maxConnectionsPerAccount: config.transferMaxConnectionsPerAccount,
      listLimit: config.transferListLimit,
      maxArchiveBytes: config.zipMaxTotalBytes,
      tempUploadHoldMs: config.transferTempUploadHoldMs,
      libraryLogLevel: ['debug', 'trace'].includes(config.logLevel) ? 'debug' : 'silent',
    },
    {
      accounts: {
        authenticateFtp: transferLogin(c, 'ftp'),
        // a session's key, checked again at every file: from the node's memory while the announcements
        // hears revocations (as the API does), so a key rotated elsewhere fails here within 1 s
        authenticate: sessionKey(c),
      },
      ...transferDeps(c, receiver, opts.metrics, log),
    },
  );
  await startListening(channel, 'ftp', opts.readiness);
  // implicit FTPS asked for: ready only while it listens too (not started without a certificate)
  if (config.ftpsImplicitPort !== undefined) {
    opts.readiness?.set('ftps-implicit', async () => {
      if (channel.implicitPort === undefined) throw new Error('implicit FTPS not started: it needs TLS_CERT and TLS_KEY');
      if (!channel.ready) throw new Error('implicit FTPS server not listening');
    });
  }
  log.info(
    {
      url: channel.url,
      tls: Boolean(tls),
      requireTls: policy.requireTls,
      implicitFtpsPort: channel.implicitPort,
      pasv: `${config.ftpPasvUrl} ${config.ftpPasvRange.join('-')}`,
    },
    'ftp listening',
  );
  return channel;
}
