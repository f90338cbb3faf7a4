// An FTPS session opened with an upload key (issue 44) on node B ends within 1 s when the key is
// revoked on node A (two nodes, one database, one Redis prefix, both caching keys); a session of
// another upload key of the same account goes on.
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

const sizeCode = (client: Client) => ftpCode(client.size('not-there.pdf'));

describe('an FTPS session with an upload key on another node', () => {
  it('ends within 1 s when the key is revoked on node A; another upload key goes on', async () => {
    const acct = await a.ftpAccount();
    const make = async (name: string) => (await a.request('POST', '/v2/account/upload-keys', { key: acct.liveKey, body: { name } })).body as { id: string; key: string };
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
