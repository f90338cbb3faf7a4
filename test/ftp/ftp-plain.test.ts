// Plain FTP, which only runs when FTP_ALLOW_PLAIN=true says so: curl -T and basic-ftp without TLS,
// with upload keys limited to this host's network (the only keys plain FTP takes, issue 44); the
// API key and an upload key that works from anywhere are refused with a 530 that says why.
// Without a certificate and without that setting the ftp role does not start. Graceful stop.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService } from '../../src/app/start-service.ts';
import { startFtpRole } from '../../src/app/ftp-role.ts';
import { TransferMetrics, transferReadings } from '../../src/channels/transfer/transfer-metrics.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/test-app.ts';
import { connectFtp, curlUpload, ftpCode, intakeIdOf, upload } from './ftp-clients.ts';
import { expectCurlUploadsAttached, ftpTestFile, until } from './ftp-harness.ts';
import { RawFtp } from './raw-ftp.ts';

const t = ftpTestFile({ tls: false, config: { ftpAllowPlain: true } });

describe('plain FTP (FTP_ALLOW_PLAIN=true, no certificate)', () => {
  it('curl -T with a network-limited upload key uploads by number and by id: attached', async () => {
    const { key } = await t.uploadKey(t.account.liveKey, ['127.0.0.0/8']);
    await expectCurlUploadsAttached(t, { tls: false, password: key });
  });

  it('the API key, and an upload key that works from anywhere, are refused with a 530 that says why', async () => {
    const anywhere = await t.uploadKey(t.account.liveKey, []);
    const file = path.join(t.dir, 'refused.pdf');
    fs.writeFileSync(file, await makePdf('refused'));
    const before = (await t.imports(t.account.liveKey)).length;
    const counted = await t.counters();
    for (const password of [t.account.liveKey, t.account.testKey, anywhere.key]) {
      const run = await curlUpload(t.port, t.account.ftpUsername, password, file, 'refused.pdf', { tls: false });
      expect(run.code).toBe(67); // CURLE_LOGIN_DENIED
      expect(run.stderr).toContain('< 530 Plain FTP takes only a network-limited upload key; use FTPS');
    }
    const client = connectFtp(t.port, t.account.ftpUsername, t.account.liveKey, false);
    await expect(client).rejects.toThrow(/530 Plain FTP takes only a network-limited upload key; use FTPS/);
    expect((await t.imports(t.account.liveKey)).length).toBe(before);
    expect((await t.counters()).loginsRefusedPlaintext - counted.loginsRefusedPlaintext).toBe(4);
  });

  it('basic-ftp without TLS: a test-mode upload key to test mode, wrong key 530, AUTH TLS not offered (502)', async () => {
    const inv = await t.invoice(t.account.testKey);
    const { key } = await t.uploadKey(t.account.testKey);
    const client = await connectFtp(t.port, t.account.ftpUsername, key, false);
    try {
      const res = await upload(client, `${inv.invoiceNumber}.pdf`, await makePdf('plain test'));
      expect(await t.waitFor(t.account.testKey, intakeIdOf(res.message))).toMatchObject({ status: 'attached', invoice: inv.id });
    } finally {
      client.close();
    }
    expect(await ftpCode(connectFtp(t.port, t.account.ftpUsername, 'test_wrong', false))).toBe(530);
    const { ftp } = await RawFtp.connect(t.port);
    try {
      expect(await ftp.send('AUTH TLS')).toMatch(/^502/);
    } finally {
      ftp.close();
    }
  });

  it('stop() lets a running upload finish (226) and refuses new connections meanwhile', async () => {
    const metrics = new TransferMetrics('ftp');
    const channel = (await startFtpRole(t.svc.container, t.svc.container.intake, { metrics }))!;
    const inv = await t.invoice(t.account.liveKey);
    const { key } = await t.uploadKey(t.account.liveKey);
    const client = await connectFtp(channel.port, t.account.ftpUsername, key, false);
    const source = new PassThrough();
    const pdf = await makePdf('graceful');
    const pending = client.uploadFrom(source, `${inv.invoiceNumber}.pdf`);
    source.write(pdf.subarray(0, 100));
    await until(async () => (await transferReadings(metrics.registry).gauge('transfers')) === 1, 5000, 'the upload to start');
    const stopped = channel.stop(10_000);
    await until(async () => !channel.ready, 5000, 'the channel to drain');
    // a new connection is not accepted any more
    await expect(RawFtp.connect(channel.port)).rejects.toThrow(/ECONNREFUSED/);
    source.end(pdf.subarray(100));
    const res = await pending;
    expect(res.code).toBe(226);
    client.close();
    await stopped;
    expect(await t.waitFor(t.account.liveKey, intakeIdOf(res.message))).toMatchObject({ status: 'attached', invoice: inv.id });
  });
});

describe('no certificate and plain FTP not allowed', () => {
  it('by default the ftp role makes a self-signed certificate once and requires TLS', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (l: string) => void lines.push(l) });
    const db = await openTestDatabase();
    const config = testConfig({ roles: ['ftp'], ftpPort: 0 });
    const svc = await startService(config, log, { db });
    try {
      expect(svc.ftpPort).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(config.dataDir, 'ftp-tls', 'cert.pem'))).toBe(true);
      const listening = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'ftp listening');
      expect(listening).toMatchObject({ tls: true, requireTls: true });
      // the server really speaks TLS: AUTH TLS is accepted (234)
      const reply = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(svc.ftpPort!, '127.0.0.1');
        let buf = '';
        sock.on('data', (d) => {
          buf += d.toString();
          if (/^220 /m.test(buf) && !buf.includes('AUTH sent')) {
            buf += 'AUTH sent\n';
            sock.write('AUTH TLS\r\n');
          }
          const m = /^(234|5\d\d) .*$/m.exec(buf);
          if (m) {
            sock.destroy();
            resolve(m[0]);
          }
        });
        sock.on('error', reject);
      });
      expect(reply).toMatch(/^234 /);
    } finally {
      await svc.stop();
      await db.close();
    }
  });

  it('with FTP_SELF_SIGNED_CERT=false the ftp role does not start and says why; the other roles run', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (l: string) => void lines.push(l) });
    const db = await openTestDatabase();
    const svc = await startService(testConfig({ roles: ['api', 'ftp'], ftpPort: 0, ftpSelfSignedCert: false }), log, { db });
    try {
      expect(svc.ftpPort).toBeUndefined();
      expect(svc.apiUrl).toBeDefined();
      const refused = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'ftp role not started');
      expect(refused.problem).toMatch(/TLS_CERT and TLS_KEY.*FTP_ALLOW_PLAIN=true/);
    } finally {
      await svc.stop();
      await db.close();
    }
  });
});
