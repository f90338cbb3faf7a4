// Redis down when a file arrives: receive() rejects in bounded time (the channel must not
// acknowledge) and leaves no staged file behind. Private redis-server: it is stopped here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';
import { makeZip, pdfsNamed } from '../helpers/zip-archives.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';

let redis: PrivateRedis;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let svc: RunningService;

beforeAll(async () => {
  redis = await startPrivateRedis();
  pgdb = await createPgDatabase();
  const config = testConfig({ roles: ['api'], redisUrl: redis.url, databaseUrl: pgdb.url });
  svc = await startService(config, createLogger(config.logLevel));
});
afterAll(async () => {
  await svc?.stop();
  await pgdb?.drop();
  await redis?.stop();
});

describe('Redis down', () => {
  it('receive() rejects and stages nothing, so the sender is not told the file arrived', async () => {
    const acct = await svc.container.accounts.create('down');
    const scope = { accountId: acct.id, mode: 'live' as const };
    const ok = await svc.intake.receive({ scope, channel: 'ftp', sender: 'x', filename: 'UP-1.pdf', bytes: await makePdf('up') });
    expect(ok.status).toBe('received');
    await redis.stop();
    await expect(svc.intake.receive({ scope, channel: 'ftp', sender: 'x', filename: 'DOWN-1.pdf', bytes: await makePdf('down') })).rejects.toThrow(
      /did not answer|Connection is closed|ECONNREFUSED/,
    );
    const rows = await svc.container.db.query<{ filename: string }>('select filename from intake_staging where account_id = $1 order by received_at', [
      acct.id,
    ]);
    expect(rows.map((r) => r.filename)).toEqual(['UP-1.pdf']);
  });

  it('a ZIP archive: receive() rejects and leaves neither the archive nor its files staged', async () => {
    const acct = await svc.container.accounts.create('down-zip');
    const scope = { accountId: acct.id, mode: 'live' as const };
    const zip = await makeZip(await pdfsNamed('DZ-', 3));
    await redis.stop(); // already stopped by the test above when it ran first
    await expect(svc.intake.receive({ scope, channel: 'ftp', sender: 'x', filename: 'day.zip', bytes: zip })).rejects.toThrow(
      /did not answer|Connection is closed|ECONNREFUSED/,
    );
    const rows = await svc.container.db.query('select filename from intake_staging where account_id = $1', [acct.id]);
    expect(rows).toEqual([]);
  });

  it('stays known down while ioredis tries again (status connecting between tries), so a file is refused at once', async () => {
    await redis.stop(); // already stopped by the test above when it ran first
    const { jobs, redis: client } = svc.container;
    // ioredis emits 'connecting' (on the next tick) as each try begins: its status then reads
    // `connecting` until the refused socket closes. Judged at that moment, three tries in a row.
    const seen: { status: string; down: boolean }[] = [];
    await new Promise<void>((resolve) => {
      const onTry = () => {
        seen.push({ status: client.status, down: jobs.connectionDown() });
        if (seen.length < 3) return;
        client.off('connecting', onTry);
        resolve();
      };
      client.on('connecting', onTry);
    });
    expect(seen).toEqual(Array.from({ length: 3 }, () => ({ status: 'connecting', down: true })));
  });

  it('POST /v2/imports answers 503 with Retry-After and the spec body, at once', async () => {
    const acct = await svc.container.accounts.create('down-http');
    await redis.stop(); // already stopped by the test above when it ran first
    const started = Date.now();
    const res = await fetch(`${svc.apiUrl}/v2/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'DOWN-2.pdf', content: (await makePdf('down')).toString('base64') }),
    });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(await res.json()).toEqual({ status: 503, title: 'Service Unavailable', detail: expect.stringMatching(/Redis.*Retry shortly/) });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
