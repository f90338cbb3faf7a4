// Whether the FTP server may start, and whether it must see AUTH TLS before USER/PASS. Pure.
//
// Keys are passwords on FTP, so plain FTP is never the silent default: TLS is required whenever
// a certificate is configured, and FTP without TLS only runs when FTP_ALLOW_PLAIN=true says so.

export interface TlsSettings {
  hasCertificate: boolean;
  /** FTP_REQUIRE_TLS, when set */
  requireTls?: boolean;
  /** FTP_ALLOW_PLAIN */
  allowPlain: boolean;
}

export type TlsPolicy = { ok: true; requireTls: boolean } | { ok: false; problem: string };

export function ftpTlsPolicy(s: TlsSettings): TlsPolicy {
  if (s.requireTls && !s.hasCertificate) return { ok: false, problem: 'FTP_REQUIRE_TLS=true needs TLS_CERT and TLS_KEY' };
  // with a certificate, TLS is required unless plain logins are explicitly allowed
  const requireTls = s.requireTls ?? (s.hasCertificate && !s.allowPlain);
  if (!requireTls && !s.allowPlain) {
    return {
      ok: false,
      problem: s.hasCertificate
        ? 'FTP_REQUIRE_TLS=false lets keys travel in clear: set FTP_ALLOW_PLAIN=true as well to allow that'
        : 'FTP needs TLS_CERT and TLS_KEY (FTPS), or FTP_ALLOW_PLAIN=true to accept keys in clear',
    };
  }
  return { ok: true, requireTls };
}
