// FTPS out of the box: without TLS_CERT/TLS_KEY the ftp role makes a self-signed certificate once
// (selfsigned, pure JavaScript: the slim runtime image has no openssl binary) in DATA_DIR/ftp-tls,
// so `npm start` serves FTP with TLS required and keys never travel in clear. Production sets
// TLS_CERT/TLS_KEY to a real certificate.
import fs from 'node:fs';
import path from 'node:path';

/** A self-signed RSA 2048 certificate (PEM) for these names and IP addresses. */
export async function makeSelfSignedCert(subject: {
  commonName: string;
  days: number;
  dnsNames?: string[];
  ips?: string[];
}): Promise<{ cert: string; key: string }> {
  const altNames = [...(subject.dnsNames ?? []).map((value) => ({ type: 2 as const, value })), ...(subject.ips ?? []).map((ip) => ({ type: 7 as const, ip }))];
  // loaded here: selfsigned brings @peculiar/x509 and pkijs (about 0.4 s of CPU to load), needed once per DATA_DIR
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: subject.commonName }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + subject.days * 86_400_000),
    extensions: altNames.length ? [{ name: 'subjectAltName', altNames }] : undefined,
  });
  return { cert: pems.cert, key: pems.private };
}

/** Where the ftp role keeps its self-signed certificate (the dashboard shows its fingerprint). */
export const selfSignedCertPath = (dataDir: string) => path.resolve(dataDir, 'ftp-tls', 'cert.pem');

export async function ensureSelfSignedCert(dataDir: string): Promise<{ cert: string; key: string }> {
  const cert = selfSignedCertPath(dataDir);
  const dir = path.dirname(cert);
  const key = path.join(dir, 'key.pem');
  if (fs.existsSync(cert) && fs.existsSync(key)) return { cert, key };
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pems = await makeSelfSignedCert({ commonName: 'invoice-intake', days: 3650 });
  fs.writeFileSync(key, pems.key, { mode: 0o600 });
  fs.writeFileSync(cert, pems.cert);
  return { cert, key };
}
