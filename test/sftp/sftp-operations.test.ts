// What an operator sees of the SFTP channel, on the real service: the sftp_* series of GET /metrics,
// the sftp check of /readyz, the session id as the trace id from receiving to attached, and a
// graceful shutdown that lets an open upload finish (staged, its close answered OK).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FtpAccount } from '../ftp/ftp-harness.ts';
import { parsePrometheusText, sampleValue } from '../ops/prom-text.ts';
import { bigPdf, close, connectSftp, open, startSftpApp, write, writeFile, type SftpApp } from './sftp-harness.ts';

let app: SftpApp;
let account: FtpAccount;

beforeAll(async () => {
  app = await startSftpApp();
  account = await app.ftpAccount();
});
afterAll(async () => app?.close());

const login = (a: SftpApp, acct: FtpAccount) => connectSftp(a.sftpPort, { username: acct.ftpUsername, password: acct.liveKey });
const logged = (a: SftpApp) => a.logLines.map((l) => JSON.parse(l) as Record<string, any>);

async function scrape() {
  const res = await app.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const { samples } = parsePrometheusText(res.body);
  return (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);
}

describe('metrics, readiness and the trace id', () => {
  it('an upload moves the sftp_* series of /metrics and is traced by its session id to attached; /readyz checks sftp', async () => {
    const was = await scrape();
    const invoice = await app.invoice(account.liveKey);
    const pdf = await bigPdf(20_000);
    const { client, sftp } = await login(app, account);
    await writeFile(sftp, `${invoice.invoiceNumber}.pdf`, pdf);
    const during = await scrape();
    expect(during('sftp_sessions_active')).toBeGreaterThanOrEqual(1);
    client.end();
    // expect.poll's default second is too short for the worker on a busy machine (the whole suite on two cores)
    await expect
      .poll(async () => (await app.imports(account.liveKey)).find((r) => r.filename === `${invoice.invoiceNumber}.pdf`)?.status, { timeout: 30_000 })
      .toBe('attached');

    const now = await scrape();
    expect(now('sftp_logins_total')).toBe(was('sftp_logins_total') + 1);
    expect(now('sftp_sessions_total')).toBe(was('sftp_sessions_total') + 1);
    expect(now('sftp_uploads_total', { outcome: 'received' })).toBe(was('sftp_uploads_total', { outcome: 'received' }) + 1);
    expect(now('sftp_received_bytes_total')).toBe(was('sftp_received_bytes_total') + pdf.length);
    expect(now('intake_imports_total', { channel: 'sftp', status: 'attached' })).toBe(was('intake_imports_total', { channel: 'sftp', status: 'attached' }) + 1);

    const lines = logged(app);
    const received = lines.find((l) => l.msg === 'sftp upload received' && l.name === `${invoice.invoiceNumber}.pdf`)!;
    const traceId = `sftp-${received.session}`;
    const traced = lines.filter((l) => l.traceId === traceId && l.intakeId === received.intakeId).map((l) => l.msg);
    expect(traced).toEqual(expect.arrayContaining(['intake received', 'intake attached']));

    const ready = await app.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.sftp).toBe('ok');
  });
});

describe('graceful shutdown', () => {
  it('an upload open when the service stops finishes and is received; new connections are refused meanwhile', async () => {
    const own = await startSftpApp({ shutdownGraceMs: 15_000 });
    const acct = await own.ftpAccount();
    const invoice = await own.invoice(acct.liveKey);
    const pdf = await bigPdf(60_000);
    const { client, sftp } = await login(own, acct);
    const handle = await open(sftp, `${invoice.invoiceNumber}.pdf`, 'w');
    await write(sftp, handle, pdf.subarray(0, 30_000), 0);
    const closing = own.close();
    await expect
      .poll(() =>
        login(own, acct).then(
          (c) => (c.client.end(), 'accepted'),
          (e: Error) => e.message,
        ),
      )
      .not.toBe('accepted');
    await write(sftp, handle, pdf.subarray(30_000), 30_000);
    await close(sftp, handle);
    const lines = logged(own);
    // the close was answered OK once the file was staged and enqueued
    expect(lines.find((l) => l.msg === 'sftp upload received')).toMatchObject({ name: `${invoice.invoiceNumber}.pdf`, size: pdf.length });
    expect(lines.some((l) => l.msg === 'intake received' && l.filename === `${invoice.invoiceNumber}.pdf`)).toBe(true);
    client.end();
    await closing;
  });
});
