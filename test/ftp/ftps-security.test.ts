// Logins over FTPS: TLS before USER/PASS, TLS 1.2 minimum, wrong keys, lockout per address and per
// user (in Redis, logged and counted), connection limits, the room for temporary uploads, no
// resuming, the passive port range.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { lockoutKeys } from '../../src/channels/transfer/lockout-policy.ts';
import { connectFtp, curlUpload, ftpCode, upload } from './ftp-clients.ts';
import { startFtpApp, until, type FtpApp } from './ftp-harness.ts';
import { loginFrom, RawFtp } from './raw-ftp.ts';

let t: FtpApp;
let redis: Redis;

beforeAll(async () => {
  t = await startFtpApp({ config: { transferLockoutAttempts: 3, transferLockoutMs: 60_000, transferMaxConnectionsPerAccount: 2, ftpMaxConnections: 8 } });
  redis = new Redis(t.config.redisUrl);
});
afterAll(async () => {
  redis?.disconnect();
  await t?.close();
});

describe('TLS before the key', () => {
  it('refuses USER and PASS before AUTH TLS (530), without checking the key', async () => {
    const a = await t.ftpAccount();
    const before = await t.counters();
    expect(await ftpCode(connectFtp(t.port, a.ftpUsername, a.liveKey, false))).toBe(530);
    const { ftp } = await RawFtp.connect(t.port);
    try {
      expect(await ftp.send(`USER ${a.ftpUsername}`)).toMatch(/^530 TLS required/);
      // a client that sends its key anyway is refused the same way, and the key is not evaluated
      expect(await ftp.send(`PASS ${a.liveKey}`)).toMatch(/^530 TLS required/);
      expect(await ftp.send('STOR x.pdf')).toMatch(/^530 /);
    } finally {
      ftp.close();
    }
    const after = await t.counters();
    expect(after.loginsRefusedPlaintext - before.loginsRefusedPlaintext).toBe(3);
    expect(after.loginsSucceeded - before.loginsSucceeded).toBe(0);
    expect(after.loginsFailed - before.loginsFailed).toBe(0);
    expect(t.logLines.some((l) => l.includes(a.liveKey))).toBe(false);
  });

  it('curl without --ssl-reqd is refused at USER; with it the upload goes through', async () => {
    const a = await t.ftpAccount();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-')), 'plain.pdf');
    fs.writeFileSync(file, await makePdf('plain'));
    const plain = await curlUpload(t.port, a.ftpUsername, a.liveKey, file, 'plain.pdf', { tls: false });
    expect(plain.code).toBe(67); // CURLE_LOGIN_DENIED
    expect(plain.stderr).toMatch(/< 530 TLS required/);
    expect(plain.stderr).not.toMatch(/> PASS/);
    const secure = await curlUpload(t.port, a.ftpUsername, a.liveKey, file, 'plain.pdf', { tls: true });
    expect(secure.code, secure.stderr).toBe(0);
  });

  it('refuses TLS 1.1 on AUTH TLS and accepts TLS 1.2', async () => {
    // the client really can speak TLS 1.1: a server that allows it completes the handshake
    const cert = { cert: fs.readFileSync(path.join(t.certDir, 'cert.pem')), key: fs.readFileSync(path.join(t.certDir, 'key.pem')) };
    const old = { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' } as const;
    const permissive = tls.createServer({ ...cert, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }, (s) => s.end());
    await new Promise<void>((r) => permissive.listen(0, '127.0.0.1', r));
    try {
      const probe = tls.connect({ port: (permissive.address() as net.AddressInfo).port, host: '127.0.0.1', rejectUnauthorized: false, ...old });
      const version = await new Promise<string | null>((resolve, reject) => {
        probe.once('secureConnect', () => resolve(probe.getProtocol()));
        probe.once('error', reject);
      });
      probe.destroy();
      expect(version).toBe('TLSv1.1');
    } finally {
      permissive.close();
    }

    const { ftp } = await RawFtp.connect(t.port);
    try {
      await expect(ftp.startTls(old)).rejects.toThrow(/protocol version|wrong version|unsupported protocol/i);
    } finally {
      ftp.close();
    }
    const { ftp: ok } = await RawFtp.connect(t.port);
    try {
      await ok.startTls({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
      expect((ok.socket as tls.TLSSocket).getProtocol()).toBe('TLSv1.2');
      const a = await t.ftpAccount();
      expect(await ok.login(a.ftpUsername, a.liveKey)).toMatch(/^230 /);
    } finally {
      ok.close();
    }
  });
});

describe('wrong keys and lockout', () => {
  it("answers 530 to a wrong key, an unknown user and another account's key", async () => {
    const a = await t.ftpAccount();
    const b = await t.ftpAccount();
    expect(await ftpCode(connectFtp(t.port, a.ftpUsername, 'live_wrongwrongwrong'))).toBe(530);
    expect(await ftpCode(connectFtp(t.port, a.ftpUsername, b.liveKey))).toBe(530);
    expect(await loginFrom(t.port, 'nosuchuser', a.liveKey, '127.0.0.6')).toMatch(/^530 Login incorrect/);
    // fewer failures than the limit (3), then a success: the counts start again
    (await connectFtp(t.port, a.ftpUsername, a.liveKey)).close();
    const keys = lockoutKeys(t.config.redisPrefix, '127.0.0.1', a.ftpUsername);
    expect(await redis.exists(keys.user, keys.address)).toBe(0);
  });

  it('locks a user out after repeated failures, from any address, for the configured time; logged and counted', async () => {
    const a = await t.ftpAccount();
    const before = await t.counters();
    for (let i = 0; i < 3; i++) expect(await loginFrom(t.port, a.ftpUsername, `live_guess${i}`, '127.0.0.2')).toMatch(/^530 Login incorrect/);
    // the right key, from an address that never failed: the user is locked
    expect(await loginFrom(t.port, a.ftpUsername, a.liveKey, '127.0.0.3')).toMatch(/^530 Too many failed logins/);
    const after = await t.counters();
    const events = t.logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'ftp login locked out after repeated failures' && l.username === a.ftpUsername);
    expect(after.loginsFailed - before.loginsFailed).toBe(3);
    expect(after.loginsRefusedLockedOut - before.loginsRefusedLockedOut).toBe(1);
    expect(events).toContainEqual(expect.objectContaining({ subject: 'user', address: '127.0.0.2', username: a.ftpUsername, lockoutMs: 60_000 }));
    expect(after.lockouts - before.lockouts).toBe(events.length);
    const key = lockoutKeys(t.config.redisPrefix, '127.0.0.2', a.ftpUsername).user;
    expect(key.startsWith(`${t.config.redisPrefix}:`)).toBe(true);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const logged = t.logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'ftp login locked out after repeated failures' && l.username === a.ftpUsername);
    expect(logged.map((l) => l.subject)).toContain('user');
    expect(t.logLines.some((l) => l.includes(a.liveKey) || l.includes('live_guess'))).toBe(false);
  });

  it('locks an address out after repeated failures for any user; other addresses still log in', async () => {
    const a = await t.ftpAccount();
    for (let i = 0; i < 3; i++) expect(await loginFrom(t.port, `ghost${i}${Date.now()}`, 'live_nope', '127.0.0.4')).toMatch(/^530 Login incorrect/);
    expect(await loginFrom(t.port, a.ftpUsername, a.liveKey, '127.0.0.4')).toMatch(/^530 Too many failed logins/);
    expect(await loginFrom(t.port, a.ftpUsername, a.liveKey, '127.0.0.5')).toMatch(/^230 /);
    const logged = t.logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'ftp login locked out after repeated failures' && l.address === '127.0.0.4');
    expect(logged.map((l) => l.subject)).toEqual(['address']);
  });
});

describe('limits and passive mode', () => {
  it('allows at most the configured connections per account (421 beyond), and more again once one closes', async () => {
    const a = await t.ftpAccount();
    const c1 = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    const c2 = await connectFtp(t.port, a.ftpUsername, a.testKey);
    try {
      const { ftp } = await RawFtp.connect(t.port);
      await ftp.startTls();
      expect(await ftp.login(a.ftpUsername, a.liveKey)).toMatch(/^421 Too many connections for this account/);
      ftp.close();
      // another account is not affected
      const b = await t.ftpAccount();
      (await connectFtp(t.port, b.ftpUsername, b.liveKey)).close();
    } finally {
      c1.close();
    }
    await until(async () => (await t.gauge('connections')) <= 1, 5000, 'the closed connections to be gone');
    const c3 = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    c3.close();
    c2.close();
  });

  it('refuses connections over the total maximum with 421 at once', async () => {
    await until(async () => (await t.gauge('connections')) === 0, 5000, 'earlier connections to close');
    const open: RawFtp[] = [];
    try {
      // from four addresses, two each: under TRANSFER_MAX_UNAUTHENTICATED_PER_ADDRESS, so the total is what refuses
      for (let i = 0; i < 8; i++) {
        const { ftp, greeting } = await RawFtp.connect(t.port, `127.0.3.${1 + (i % 4)}`);
        open.push(ftp);
        expect(greeting).toMatch(/^220/);
      }
      const { ftp, greeting } = await RawFtp.connect(t.port, '127.0.3.5');
      open.push(ftp);
      expect(greeting).toBe('421 Too many connections, try again later');
    } finally {
      for (const f of open) f.close();
    }
  });

  it('at most 4 temporary uploads wait per account and mode (452 beyond); resuming (REST + STOR) is refused with 554', async () => {
    const a = await t.ftpAccount();
    const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    try {
      const pdf = await makePdf('held');
      for (let i = 0; i < 4; i++) await upload(client, `held-${i}.pdf.part`, pdf);
      expect(await ftpCode(upload(client, 'held-4.pdf.part', pdf))).toBe(452);
      // the same name again replaces its upload
      expect((await upload(client, 'held-0.pdf.part', pdf)).code).toBe(226);
      expect((await client.send('REST 100')).code).toBe(350);
      expect(await ftpCode(upload(client, 'resumed.pdf', pdf))).toBe(554);
    } finally {
      client.close();
    }
    expect(await t.imports(a.liveKey)).toEqual([]);
  });

  it('answers PASV and EPSV with ports from the configured range', async () => {
    await until(async () => (await t.gauge('connections')) === 0, 5000, 'earlier connections to close');
    const a = await t.ftpAccount();
    const ftp = await RawFtp.loggedIn(t.port, a.ftpUsername, a.liveKey);
    try {
      const pasv = await ftp.send('PASV');
      const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(pasv)!;
      expect(pasv).toMatch(/^227 /);
      const port = Number(m[5]) * 256 + Number(m[6]);
      expect(port).toBeGreaterThanOrEqual(t.pasvRange[0]);
      expect(port).toBeLessThanOrEqual(t.pasvRange[1]);
      const epsv = await ftp.send('EPSV');
      const e = Number(/\|\|\|(\d+)\|/.exec(epsv)![1]);
      expect(e).toBeGreaterThanOrEqual(t.pasvRange[0]);
      expect(e).toBeLessThanOrEqual(t.pasvRange[1]);
    } finally {
      ftp.close();
    }
    // and a transfer over it works
    const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    try {
      expect((await upload(client, 'pasv.pdf', await makePdf('pasv'))).code).toBe(226);
    } finally {
      client.close();
    }
  });

  it("a data connection from another address than the control connection is refused; the client's own still works", async () => {
    await until(async () => (await t.gauge('connections')) === 0, 5000, 'earlier connections to close');
    const a = await t.ftpAccount();
    const ftp = await RawFtp.loggedIn(t.port, a.ftpUsername, a.liveKey);
    try {
      await ftp.send('PBSZ 0');
      await ftp.send('PROT P');
      const port = Number(/\|\|\|(\d+)\|/.exec(await ftp.send('EPSV'))![1]);
      // someone at another address guesses the port first
      const intruder = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.9' });
      intruder.on('error', () => {});
      await new Promise((r) => intruder.once('close', r));
      expect(t.logLines.some((l) => l.includes('ftp data connection from another address refused') && l.includes('127.0.0.9'))).toBe(true);
      const data = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
      await new Promise<void>((resolve, reject) => {
        data.once('secureConnect', resolve);
        data.once('error', reject);
      });
      expect(await ftp.send('STOR guarded.pdf')).toMatch(/^150/);
      data.end(await makePdf('guarded'));
      expect(await ftp.reply()).toMatch(/^226 guarded\.pdf received/);
    } finally {
      ftp.close();
    }
  });
});
