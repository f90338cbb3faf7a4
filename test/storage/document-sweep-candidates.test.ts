// The incremental sweep (issues 45/46): migration 0030's triggers note every pointer that goes
// away as a candidate, and an hourly run checks those only; the whole store is listed once per
// DOCUMENT_SWEEP_FULL_INTERVAL_HOURS. On PGlite and PostgreSQL, the database and directory drivers.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../helpers/database.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';
import { testStoreConfig } from '../helpers/test-store.ts';

const HOUR = 3_600_000;
const sha = (c: string) => c.repeat(64);

for (const dbKind of ['pglite', 'postgres'] as const)
  for (const kind of ['database', 'directory'] as const) {
    describe(`candidates on ${dbKind}, the ${kind} driver`, () => {
      let t: TestApp;
      let acct: TestAccount;
      beforeAll(async () => {
        t = await startTestApp({ db: await openTestDatabase(dbKind), config: { ...testStoreConfig(kind), documentSweepGraceHours: 24 } });
        acct = await t.createAccount();
      });
      afterAll(() => t?.close());

      const candidates = async () => (await t.db.query<{ sha256: string }>('select sha256 from document_object_releases order by sha256')).map((r) => r.sha256);
      const forget = () => t.db.query('delete from document_object_releases');
      const stage = (id: string, sha256: string) =>
        t.db.query(
          `insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, content_sha256)
           values ($1, $2, 'live', 'http', 'sweep', 'x.pdf', 1, $3, $3)`,
          [id, acct.id, sha256],
        );
      /** The object as the store would have it after `hours` without a put. */
      const age = async (sha256: string, hours: number) => {
        const then = new Date(Date.now() - hours * HOUR);
        if (kind === 'database') await t.db.query('update document_objects set modified_at = $2 where sha256 = $1', [sha256, then]);
        else fs.utimesSync(path.join(t.config.documentStoreDir!, sha256.slice(0, 2), sha256.slice(2, 4), sha256), then, then);
      };
      const releasedAgo = (hours: number) => t.db.query(`update document_object_releases set released_at = now() - make_interval(hours => $1::int)`, [hours]);
      const lastFullAgo = (hours: number) => t.db.query(`update document_sweeps set full_pass_at = now() - make_interval(hours => $1::int)`, [hours]);

      it('the first run lists the whole store, the next ones only the candidates', async () => {
        expect(await t.c.documentSweep.run()).toMatchObject({ full: true, candidates: 0 });
        expect(await t.c.documentSweep.run()).toMatchObject({ full: false, checked: 0, removed: 0 });
      });

      if (kind === 'database')
        it('a pointer that goes away is a candidate: each pointer column, by update and by delete', async () => {
          await forget();
          // smtp_messages.raw_sha256
          for (const [id, raw] of [
            ['smtp_a', sha('a')],
            ['smtp_b', sha('b')],
          ])
            await t.db.query(
              `insert into smtp_messages (id, dedupe_key, raw_sha256, size, mail_from, rcpt_to, client_ip, verdict) values ($1, $1, $2, 1, 'a@b', '{}', '127.0.0.1', '{}')`,
              [id, raw],
            );
          await t.db.query(`update smtp_messages set attempts = attempts + 1`); // no pointer went away
          expect(await candidates()).toEqual([]);
          await t.db.query(`update smtp_messages set raw_sha256 = null where id = 'smtp_a'`);
          await t.db.query(`delete from smtp_messages where id = 'smtp_b'`);
          expect(await candidates()).toEqual([sha('a'), sha('b')]);

          // intake_staging.content_sha256; pointers swapped within one statement release nothing
          await forget();
          await stage('imp_c', sha('c'));
          await stage('imp_d', sha('d'));
          await t.db.query(`update intake_staging set content_sha256 = case id when 'imp_c' then $1 else $2 end where id in ('imp_c', 'imp_d')`, [
            sha('d'),
            sha('c'),
          ]);
          expect(await candidates()).toEqual([]);
          await t.db.query(`update intake_staging set content_sha256 = null where id = 'imp_c'`);
          await t.db.query(`delete from intake_staging where id = 'imp_d'`);
          expect(await candidates()).toEqual([sha('c'), sha('d')]);

          // documents.content_sha256 and original_sha256
          await forget();
          const inv = await createInvoice(t, acct.liveKey);
          await t.db.query(
            `insert into documents (id, account_id, mode, invoice_id, filename, media_type, size, sha256, content_sha256, original_sha256)
             values ('doc_sweep', $1, 'live', $2, 'x.pdf', 'application/pdf', 1, $3, $3, $4)`,
            [acct.id, inv.id, sha('e'), sha('f')],
          );
          await t.db.query(`update documents set original_sha256 = null where id = 'doc_sweep'`);
          expect(await candidates()).toEqual([sha('f')]);
          await t.db.query(`update documents set original_sha256 = $1 where id = 'doc_sweep'`, [sha('0')]);
          await t.db.query(`delete from documents where id = 'doc_sweep'`);
          expect(await candidates()).toEqual([sha('0'), sha('e'), sha('f')]);
          await forget();
        });

      it('a normal run removes a released orphan past the grace; shared content and a re-put stay; candidates are consumed', async () => {
        await forget();
        const scope = { accountId: acct.id, mode: 'live' as const };
        const receive = async (bytes: Buffer) => t.c.intake.receive({ scope, channel: 'http', sender: 'sweep', filename: 'x.pdf', bytes });
        const againBytes = await makePdf('again');
        const gone = await receive(await makePdf('gone'));
        const shared = await receive(await makePdf('shared'));
        await stage('imp_twin', shared.sha256); // another row points at the same content
        const again = await receive(againBytes);
        for (const f of [gone, shared, again]) await t.c.importActions.discard(scope, f.id);
        expect(await candidates()).toEqual([gone.sha256, shared.sha256, again.sha256].sort());
        for (const f of [gone, shared, again]) await age(f.sha256, 30);

        // released within the grace: not looked at yet
        expect(await t.c.documentSweep.run()).toMatchObject({ full: false, checked: 0, removed: 0 });
        await releasedAgo(25);
        await t.c.store.put(againBytes, { maxBytes: againBytes.length }); // a writer about to point a new row at it
        const swept = await t.c.documentSweep.run();
        expect(swept).toMatchObject({ full: false, candidates: 3, checked: 3, removed: 1 });
        expect(await t.c.store.has(gone.sha256)).toBe(false);
        expect(await t.c.store.has(shared.sha256)).toBe(true);
        expect(await t.c.store.has(again.sha256)).toBe(true);
        expect(await candidates()).toEqual([]);
        for (const p of await t.c.repos.objects.referenced(t.db, '', 1000)) expect(await t.c.store.has(p), p).toBe(true);
      });

      it('a put whose row never committed goes only in a full pass, once DOCUMENT_SWEEP_FULL_INTERVAL_HOURS has passed', async () => {
        const orphan = await t.c.store.put(randomBytes(1000), { maxBytes: 1000 });
        await age(orphan.sha256, 30);
        await lastFullAgo(167);
        expect(await t.c.documentSweep.run()).toMatchObject({ full: false, removed: 0 });
        expect(await t.c.store.has(orphan.sha256)).toBe(true);
        await lastFullAgo(168);
        const full = await t.c.documentSweep.run();
        expect(full).toMatchObject({ full: true, removed: 1 });
        expect(full.checked).toBeGreaterThan(1); // every object past the grace, the referenced ones too
        expect(await t.c.store.has(orphan.sha256)).toBe(false);
        for (const p of await t.c.repos.objects.referenced(t.db, '', 1000)) expect(await t.c.store.has(p), p).toBe(true);
        expect((await t.c.documentSweep.run()).full).toBe(false); // the full pass was recorded
      });
    });
  }
