// /readyz of a process that runs the transfer roles: ready only when every listener it was asked
// for listens (FTP, implicit FTPS, SFTP), each reported by name; implicit FTPS asked for but not
// started (no certificate) keeps the process out of the balancer, with the reason.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { pollFor } from '../../testkit/wait.ts';
import { makeCertificate } from '../ftp/ftp-harness.ts';

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let cert: Awaited<ReturnType<typeof makeCertificate>>;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  [pgdb, cert] = await Promise.all([createPgDatabase(), makeCertificate()]);
}, 60_000);
afterAll(async () => {
  for (const p of procs) p.signal('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await pgdb?.drop();
  fs.rmSync(cert.dir, { recursive: true, force: true });
});

const start = (env: Record<string, string>) => {
  const p = spawnService(['ftp', 'sftp'], {
    DATABASE_URL: pgdb.url,
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ready-')),
    FTP_HOST: '127.0.0.1',
    FTP_PASV_URL: '127.0.0.1',
    ...env,
  });
  procs.push(p);
  return p;
};
const readyz = async (p: ServiceProcess) => {
  const res = await fetch(`${await p.url()}/readyz`);
  return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
};

describe('/readyz of the transfer roles', () => {
  it('FTP, implicit FTPS and SFTP listening: ready, each reported', async () => {
    const p = start({ TLS_CERT: cert.cert, TLS_KEY: cert.key, FTPS_IMPLICIT_PORT: '0' });
    const r = await pollFor(
      () => readyz(p),
      (x) => x.status === 200,
      { ms: 60_000, everyMs: 200, tolerateErrors: true },
    );
    expect(r).toEqual({ status: 200, checks: { database: 'ok', redis: 'ok', lifecycle: 'ok', ftp: 'ok', 'ftps-implicit': 'ok', sftp: 'ok' } });
  }, 120_000);

  it('implicit FTPS asked for without a certificate: not ready, and says why', async () => {
    const p = start({ FTP_ALLOW_PLAIN: 'true', FTPS_IMPLICIT_PORT: '0' });
    const r = await pollFor(
      () => readyz(p),
      (x) => x.checks.ftp === 'ok' && x.checks.sftp === 'ok',
      { ms: 60_000, everyMs: 200, tolerateErrors: true },
    );
    expect(r.status).toBe(503);
    expect(r.checks['ftps-implicit']).toBe('failing: implicit FTPS not started: it needs TLS_CERT and TLS_KEY');
    expect(r.checks).toMatchObject({ database: 'ok', redis: 'ok', ftp: 'ok', sftp: 'ok' });
  }, 120_000);
});
