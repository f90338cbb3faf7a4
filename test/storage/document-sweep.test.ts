// The sweep (documents.sweep): objects no committed row points at go once older than the grace
// period, never sooner; objects rows point at stay, on the database and the directory driver.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';
import { testStoreConfig } from '../helpers/test-store.ts';

const HOUR = 3_600_000;

for (const kind of ['database', 'directory'] as const) {
  describe(`the sweep on the ${kind} driver`, () => {
    let t: TestApp;
    let acct: TestAccount;
    beforeAll(async () => {
      // these cases put objects no row ever points at: only the full listing finds those, hourly here
      // (document-sweep-candidates.test.ts: the candidates, with the default interval)
      t = await startTestApp({ config: { ...testStoreConfig(kind), documentSweepGraceHours: 24, documentSweepFullIntervalHours: 1 } });
      acct = await t.createAccount();
    });
    afterAll(() => t?.close());

    const pointers = async () => {
      const out: string[] = [];
      for (let after = ''; ; ) {
        const page = await t.c.repos.objects.referenced(t.db, after, 100);
        out.push(...page);
        if (page.length < 100) return out;
        after = page[page.length - 1];
      }
    };

    it('removes orphans past the grace period only, and never an object a row points at', async () => {
      expect(t.c.store.kind).toBe(kind);
      const scope = { accountId: acct.id, mode: 'live' as const };
      const receive = async (name: string) => t.c.intake.receive({ scope, channel: 'http', sender: 'sweep', filename: name, bytes: await makePdf(name) });
      const kept = await receive('kept.pdf');
      const discarded = await receive('discarded.pdf');
      await t.c.importActions.discard(scope, discarded.id);
      const orphan = await t.c.store.put(randomBytes(1000), { maxBytes: 1000 }); // put, then its row never committed
      expect(await t.c.store.has(discarded.sha256)).toBe(true);

      // within the grace period nothing goes, referenced or not
      expect((await t.c.documentSweep.run()).removed).toBe(0);
      expect((await t.c.documentSweep.run(Date.now() + 23 * HOUR)).removed).toBe(0);
      expect(await t.c.store.has(orphan.sha256)).toBe(true);

      // past it, the two orphans go and the staged file stays
      const swept = await t.c.documentSweep.run(Date.now() + 25 * HOUR);
      expect(swept.removed).toBe(2);
      expect(await t.c.store.has(orphan.sha256)).toBe(false);
      expect(await t.c.store.has(discarded.sha256)).toBe(false);
      expect(await t.c.store.has(kept.sha256)).toBe(true);
      // a row never points at a missing object
      for (const sha of await pointers()) expect(await t.c.store.has(sha), sha).toBe(true);
      expect((await t.c.documentSweep.run(Date.now() + 25 * HOUR)).removed).toBe(0);
    });

    /** The object as the store would have it after `hours` without a put (its time set back, as an old file's). */
    const age = async (sha256: string, hours: number) => {
      const then = new Date(Date.now() - hours * HOUR);
      if (kind === 'database') await t.db.query('update document_objects set modified_at = $2 where sha256 = $1', [sha256, then]);
      else fs.utimesSync(path.join(t.config.documentStoreDir!, sha256.slice(0, 2), sha256.slice(2, 4), sha256), then, then);
    };

    it('what a put cut short left behind goes once older than the grace period', async () => {
      if (kind !== 'directory') return expect(await t.c.documentSweep.run(Date.now() + 25 * HOUR)).toMatchObject({ leftovers: 0 });
      const leftover = path.join(t.config.documentStoreDir!, '.tmp-cut-short');
      fs.writeFileSync(leftover, 'half a file');
      expect((await t.c.documentSweep.run()).leftovers).toBe(0);
      expect(fs.existsSync(leftover)).toBe(true);
      expect((await t.c.documentSweep.run(Date.now() + 25 * HOUR)).leftovers).toBe(1);
      expect(fs.existsSync(leftover)).toBe(false);
    });

    it('content put again renews its time: an old orphan that a new row is about to point at stays', async () => {
      const [again, left] = [randomBytes(2000), randomBytes(2000)];
      const [a, b] = [await t.c.store.put(again, { maxBytes: 2000 }), await t.c.store.put(left, { maxBytes: 2000 })];
      await age(a.sha256, 30);
      await age(b.sha256, 30);
      await t.c.store.put(again, { maxBytes: 2000 }); // a writer about to commit a row that points at it
      expect((await t.c.documentSweep.run()).removed).toBe(1);
      expect(await t.c.store.has(a.sha256)).toBe(true);
      expect(await t.c.store.has(b.sha256)).toBe(false);
    });

    // the database driver locks its objects for the sweep (the others check each object again before its delete)
    if (kind === 'database')
      it('a put of the same content while the sweep removes it waits for the sweep, then stores it again', async () => {
        const bytes = randomBytes(2000);
        const { sha256 } = await t.c.store.put(bytes, { maxBytes: 2000 });
        await age(sha256, 30);
        let put: Promise<unknown> | undefined;
        const removed = await t.c.store.removeUnreferenced!([sha256], new Date(Date.now() - HOUR), async (q, shas) => {
          // the object is locked now: a writer putting the same content waits on that lock
          put = t.c.store.put(bytes, { maxBytes: 2000 });
          await expect
            .poll(
              async () =>
                (
                  await t.db.query<{ n: number }>(
                    `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'insert into document_objects%'`,
                  )
                )[0].n,
            )
            .toBe(1);
          return t.c.repos.objects.unreferenced(q, shas);
        });
        expect(removed).toBe(1);
        await put;
        expect(await t.c.store.has(sha256)).toBe(true); // the writer's row may point at it: it is there
      });
  });
}
