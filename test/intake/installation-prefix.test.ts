// Two installations on one Redis: without REDIS_PREFIX each one's keys carry its own installation
// id (stored in its database), so neither sees, nor takes, the other's jobs.
import { afterAll, describe, expect, it } from 'vitest';
import { createContainer, type Container } from '../../src/app/container.ts';
import { startIntakeWorkers } from '../../src/app/intake-workers.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';
import { openPostgres } from '../../src/db/postgres.ts';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function installation(url: string, redisPrefix = ''): Promise<Container> {
  const db = openPostgres(url, 5);
  const c = await createContainer(testConfig({ redisPrefix, roles: ['api', 'worker'] }), createLogger('silent'), { db });
  cleanup.push(async () => {
    await c.close();
    await db.close();
  });
  return c;
}

describe('installation-unique Redis prefix', () => {
  it('differs between installations, stays across restarts, and REDIS_PREFIX still wins', async () => {
    const [one, two] = [await createPgDatabase(), await createPgDatabase()];
    cleanup.push(one.drop, two.drop);
    const a = await installation(one.url);
    const b = await installation(two.url);
    expect(a.config.redisPrefix).toMatch(/^ii-[0-9a-f]{12}$/);
    expect(b.config.redisPrefix).toMatch(/^ii-[0-9a-f]{12}$/);
    expect(a.config.redisPrefix).not.toBe(b.config.redisPrefix);
    expect((await installation(one.url)).config.redisPrefix).toBe(a.config.redisPrefix);
    expect((await installation(one.url, 'chosen')).config.redisPrefix).toBe('chosen');

    // b's worker runs; a's file is never seen or taken by it
    const workersB = await startIntakeWorkers(b);
    cleanup.push(() => workersB.close());
    const acct = await a.accounts.create('alpha');
    const rec = await a.intake.receive({
      scope: { accountId: acct.id, mode: 'live' },
      channel: 'http',
      sender: 'test',
      filename: 'A-1.pdf',
      bytes: await makePdf('a'),
    });
    expect(await a.jobs.bullQueue('intake').getJob(rec.id)).toBeTruthy();
    expect(await b.jobs.bullQueue('intake').getJob(rec.id)).toBeUndefined();
    const counts = await b.jobs.bullQueue('intake').getJobCounts();
    expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(0);
    expect(await a.jobs.bullQueue('intake').getJobState(rec.id)).toBe('waiting');
  });
});
