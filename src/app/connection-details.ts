// What GET /v2/account and the dashboard's settings say about the file channels, from the
// configuration, the FTPS certificate on disk (TLS_CERT, or the ftp role's self-signed one) and the
// SFTP host keys (SFTP_HOST_KEY, or the ones made once in DATA_DIR).
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import type { Config } from '../config/config.ts';
import type { ConnectionDetails } from '../domain/models.ts';
import { ftpTlsPolicy } from '../channels/ftp/ftp-tls-policy.ts';
import { selfSignedCertPath } from '../channels/ftp/self-signed-cert.ts';
import { loadHostKeys } from '../channels/sftp/host-keys.ts';

export function connectionDetails(config: Config): () => ConnectionDetails {
  let hostKeys: ConnectionDetails['sftp']['hostKeys'] | undefined;
  const certFile = config.tlsCert ?? (!config.ftpAllowPlain && config.ftpSelfSignedCert ? selfSignedCertPath(config.dataDir) : undefined);
  let cached: { mtimeMs: number; fingerprint: string } | undefined;
  // read again when the file changes (the ftp role may write the self-signed one after start-up)
  const fingerprint = (): string | null => {
    if (!certFile) return null;
    try {
      const { mtimeMs } = fs.statSync(certFile);
      if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, fingerprint: new X509Certificate(fs.readFileSync(certFile)).fingerprint256 };
      return cached.fingerprint;
    } catch {
      return null;
    }
  };
  const host = config.ftpPublicHost ?? (config.publicUrl ? new URL(config.publicUrl).hostname : undefined);
  return () => {
    const certificateSha256 = fingerprint();
    const policy = ftpTlsPolicy({ hasCertificate: Boolean(certFile), requireTls: config.ftpRequireTls, allowPlain: config.ftpAllowPlain });
    return {
      ftp: {
        host,
        port: config.ftpPort,
        tls: Boolean(certFile),
        tlsRequired: policy.ok && policy.requireTls,
        implicitFtpsPort: certFile ? (config.ftpsImplicitPort ?? null) : null,
        certificateSha256,
      },
      sftp: { host, port: config.sftpPort, hostKeys: (hostKeys ??= loadHostKeys({ dataDir: config.dataDir, hostKey: config.sftpHostKey }).fingerprints) },
    };
  };
}
