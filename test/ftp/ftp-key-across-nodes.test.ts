// An FTP session's key is checked again at every command that reads or hands in files; that check
// comes from the node's memory while the node hears key revocations over Redis pub/sub (as the
// API's does), not from the database. Two FTP nodes share one database and one Redis prefix: a key
// rotated on node A ends a session on node B within 1 s, and so does an upload key (issue 44)
// revoked there, while another upload key's session of the same account goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'basic-ftp';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { connectFtp, ftpCode, upload } from './ftp-clients.ts';
import { startFtpApp, type FtpApp } from './ftp-harness.ts';

let a: FtpApp;
let b: FtpApp;

beforeAll(async () => {
  const config = { redisPrefix: `iitest${randomToken(8)}`, keyCacheMs: 60_000 };
  a = await startFtpApp({ config });
  b = await startFtpApp({ config, db: a.db });
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** SIZE of a file that is not there: 550 while the session's key is good, 530 once it was replaced. */
const sizeCode = (client: Client) => ftpCode(client.size('not-there.pdf'));

describe('an FTP session on another node', () => {
  it('is checked from memory: a key revoked in the database alone still works in a session that checked it', async () => {
    const acct = await a.ftpAccount();
    const session = await connectFtp(b.port, acct.ftpUsername, acct.liveKey);
    try {
      expect(await sizeCode(session)).toBe(550);
      await a.db.query(`update api_keys set revoked_at = now() where account_id = $1 and mode = 'live'`, [acct.id]);
      expect((await upload(session, 'remembered.pdf', await makePdf('remembered'))).code).toBe(226);
      // a new login asks the database
      expect(await ftpCode(connectFtp(b.port, acct.ftpUsername, acct.liveKey))).toBe(530);
    } finally {
      session.close();
    }
  });

  it('ends within 1 s when the key is rotated on node A; the other mode goes on, the new key works on B', async () => {
    const acct = await a.ftpAccount();
    const live = await connectFtp(b.port, acct.ftpUsername, acct.liveKey);
    const test = await connectFtp(b.port, acct.ftpUsername, acct.testKey);
    try {
      expect((await upload(live, 'before.pdf', await makePdf('before'))).code).toBe(226);
      const newKey = await a.svc.container.accounts.rotateKey(acct.id, 'live');
      const rotated = performance.now();
      let code = await sizeCode(live);
      while (code === 550 && performance.now() - rotated < 2000) code = await sizeCode(live);
      expect(code).toBe(530);
      expect(performance.now() - rotated).toBeLessThan(1000);
      expect(await sizeCode(test)).toBe(550);
      const fresh = await connectFtp(b.port, acct.ftpUsername, newKey);
      expect((await upload(fresh, 'after.pdf', await makePdf('after'))).code).toBe(226);
      fresh.close();
    } finally {
      live.close();
      test.close();
    }
  });
});

describe('an FTPS session with an upload key on another node', () => {
  it('ends within 1 s when the key is revoked on node A; another upload key goes on', async () => {
    const acct = await a.ftpAccount();
    const make = async (name: string) =>
      (await a.request('POST', '/v2/account/upload-keys', { key: acct.liveKey, body: { name } })).body as { id: string; key: string };
    const first = await make('Scanner');
    const second = await make('Export job');
    const s1 = await connectFtp(b.port, acct.ftpUsername, first.key);
    const s2 = await connectFtp(b.port, acct.ftpUsername, second.key);
    try {
      expect((await upload(s1, 'before.pdf', await makePdf('before'))).code).toBe(226);
      expect(await sizeCode(s1)).toBe(550);
      expect((await a.request('DELETE', `/v2/account/upload-keys/${first.id}`, { key: acct.liveKey })).status).toBe(204);
      const revoked = performance.now();
      let code = await sizeCode(s1);
      while (code === 550 && performance.now() - revoked < 2000) code = await sizeCode(s1);
      expect(code).toBe(530);
      expect(performance.now() - revoked).toBeLessThan(1000);
      expect(await sizeCode(s2)).toBe(550);
      expect(await ftpCode(connectFtp(b.port, acct.ftpUsername, first.key))).toBe(530);
    } finally {
      s1.close();
      s2.close();
    }
  });
});
