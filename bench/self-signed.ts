// A self-signed certificate for localhost, for the benchmarks' FTPS and HTTPS servers.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Writes cert.pem and key.pem (openssl, valid two days) into `dir`; returns their paths. */
export function selfSignedCert(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], {
    stdio: 'ignore',
  });
  return { cert, key };
}
