// FTPS out of the box: without TLS_CERT/TLS_KEY the ftp role makes a self-signed certificate once
// (openssl CLI) in DATA_DIR/ftp-tls, so `npm start` serves FTP with TLS required and keys never
// travel in clear. Production sets TLS_CERT/TLS_KEY to a real certificate.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function ensureSelfSignedCert(dataDir: string): { cert: string; key: string } {
  const dir = path.resolve(dataDir, 'ftp-tls');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  if (fs.existsSync(cert) && fs.existsSync(key)) return { cert, key };
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=invoice-intake', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  fs.chmodSync(key, 0o600);
  return { cert, key };
}
