// A file's history (intake_history, the dashboard's) is written by the statement that changes its
// status: a line commits with its change or not at all, a change that does not apply writes none,
// and a job that runs again adds nothing. On PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainReason } from '../../src/domain/intake-reasons.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { IntakeProcessor, WaitingForInvoice } from '../../src/intake/intake-processor.ts';
import { DomainEvents } from '../../src/services/domain-events.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

/** Each record of the account with its status and the status of its newest history line, read in one snapshot. */
const STATUS_AND_LAST_LINE = `select r.id, r.status, (select h.status from intake_history h where h.intake_id = r.id order by h.at desc, h.seq desc limit 1) as last
  from intake_records r where r.account_id = $1`;

for (const kind of ['pglite', 'postgres'] as const) {
  describe(`intake history on ${kind}`, () => {
    let t: IntakeApp;
    let scope: Scope;
    let accountId: string;
    let key: string;
    let processor: IntakeProcessor;
    const announced: string[] = []; // the statuses the second worker's processor announced

    beforeAll(async () => {
      const db = await openTestDatabase(kind);
      // waiting files wait until their invoice wakes them; the reconciler runs at start-up only,
      // so records this test makes by hand get no job
      t = await startIntakeApp({ db, config: { intakeBackoffMs: 300_000, intakeBackoffMaxMs: 300_000, reconcileIntervalMs: 3_600_000 } });
      const acct = await t.account();
      scope = acct.live;
      accountId = acct.id;
      key = acct.liveKey;
      const c = t.svc.container;
      // a second worker's run of the same job
      const events = new DomainEvents();
      events.on('intakeStatus', (e) => void announced.push(e.status));
      processor = new IntakeProcessor({
        db: c.db,
        repos: c.intakeRepos,
        outbox: c.outbox,
        documents: c.documents,
        invoices: c.invoices,
        events,
        rules: { windowMs: t.config.intakeMatchWindowMs, einvoice: true, subject: true, nameToken: true, pdfText: true },
      });
    });
    afterAll(async () => {
      await t?.close();
      await t?.db.close();
    });

    const statuses = async (id: string) => (await t.svc.container.intakeHistory.list(scope, id)).map((h) => h.status);
    const invoice = async (number: string) => {
      const c = t.svc.container;
      const { customer } = await c.customers.create(scope, { customerCode: `C-${number}`, name: 'History BV' }, false);
      return c.invoices.create(scope, {
        customer: customer.id,
        invoiceNumber: number,
        invoiceDate: '01-02-2026',
        invoiceDuedate: '01-03-2026',
        invoiceTotal: '5.00',
      });
    };
    const failedRecord = async (reason: string) =>
      (await t.svc.intake.recordFailure({ scope, channel: 'mail', sender: 'a@b.nl', filename: '(no attachment)' }, plainReason(reason))).id;

    it('every file goes received -> attached or received -> waiting -> attached; the record and its last line never disagree; a job run again adds nothing', async () => {
      for (const n of [1, 2, 3]) await invoice(`H-${n}`);
      const ids: string[] = [];
      for (const n of [1, 2, 3, 4, 5, 6])
        ids.push((await t.svc.intake.receive({ scope, channel: 'ftp', sender: 'h', filename: `H-${n}.pdf`, bytes: await makePdf(`h${n}`) })).id);
      const disagreements: unknown[] = [];
      const watch = async () => {
        const rows = await t.db.query(STATUS_AND_LAST_LINE, [accountId]);
        disagreements.push(...rows.filter((r) => r.status !== r.last));
        return ids.map((id) => rows.find((r) => r.id === id)?.status);
      };
      await expect.poll(watch, { timeout: 30_000, interval: 20 }).toEqual(['attached', 'attached', 'attached', 'waiting', 'waiting', 'waiting']);

      // a second run while it waits only brings the reason up to date: no second waiting line
      const ref = { intakeId: ids[3], accountId, mode: scope.mode };
      await expect(processor.process(ref, { made: 0, max: 10 })).rejects.toBeInstanceOf(WaitingForInvoice);
      expect(await statuses(ids[3])).toEqual(['received', 'waiting']);

      for (const n of [4, 5, 6]) await invoice(`H-${n}`);
      await expect.poll(watch, { timeout: 30_000, interval: 20 }).toEqual(ids.map(() => 'attached'));
      for (const id of ids)
        expect(await processor.process({ intakeId: id, accountId, mode: scope.mode }, { made: 0, max: 10 })).toEqual({
          status: 'skipped',
          why: 'already attached',
        });

      expect(await Promise.all(ids.map(statuses))).toEqual([...Array(3).fill(['received', 'attached']), ...Array(3).fill(['received', 'waiting', 'attached'])]);
      expect(disagreements).toEqual([]);
    });

    it('a change that does not apply writes no line', async () => {
      await invoice('H-7');
      const id = (await t.svc.intake.receive({ scope, channel: 'ftp', sender: 'h', filename: 'H-7.pdf', bytes: await makePdf('h7') })).id;
      expect((await t.waitFor(key, id)).status).toBe('attached');
      const before = (await t.svc.container.intakeRepos.intake.find(t.db, scope, id))!.record;

      expect(await t.svc.container.intakeRepos.intake.markFailed(t.db, scope, id, plainReason('Too late'))).toBe(false);
      announced.length = 0;
      await processor.giveUp({ intakeId: id, accountId, mode: scope.mode }, plainReason('Gave up'));
      expect(announced).toEqual([]); // nothing changed: no failed status for metrics or the dashboard
      await t.svc.container.intakeRepos.intake.markWaiting(t.db, scope, id, plainReason('Waiting again'));
      expect(await t.svc.container.intakeRepos.intake.markRetried(t.db, scope, id)).toBe(false);
      await t.svc.container.intakeRepos.intake.markAttached(t.db, scope, id, before.invoiceId!, 'doc_other', plainReason('Attached twice'), 'manual');

      expect((await t.svc.container.intakeRepos.intake.find(t.db, scope, id))!.record).toEqual(before);
      expect(await statuses(id)).toEqual(['received', 'attached']);
    });

    it('a failed file retried gets one received line; a second retry, which does not apply, none', async () => {
      const id = await failedRecord('No PDF attached');
      expect(await t.svc.container.intakeRepos.intake.markRetried(t.db, scope, id)).toBe(true);
      expect(await t.svc.container.intakeRepos.intake.markRetried(t.db, scope, id)).toBe(false);
      expect(await statuses(id)).toEqual(['failed', 'received']);
    });

    it('a status change whose line cannot be written does not happen', async () => {
      const id = await failedRecord('No PDF attached');
      await t.db.query("alter table intake_history add constraint history_test_refusal check (reason is distinct from 'Refused line')");
      try {
        await expect(t.svc.container.intakeRepos.intake.markWaiting(t.db, scope, id, plainReason('Refused line'))).rejects.toThrow(/history_test_refusal/);
      } finally {
        await t.db.query('alter table intake_history drop constraint history_test_refusal');
      }
      expect((await t.svc.container.intakeRepos.intake.find(t.db, scope, id))!.record).toMatchObject({ status: 'failed', reason: 'No PDF attached' });
      expect(await statuses(id)).toEqual(['failed']);
    });

    // PGlite runs one statement at a time: only PostgreSQL has two changes of one row at once
    if (kind === 'postgres') {
      it('two runs that mark a file waiting at once write one waiting line', async () => {
        const id = await failedRecord('No PDF attached');
        let locked!: () => void;
        let release!: () => void;
        const holding = new Promise<void>((r) => (locked = r));
        const held = new Promise<void>((r) => (release = r));
        const first = t.db.transaction(async (tx) => {
          await t.svc.container.intakeRepos.intake.markWaiting(tx, scope, id, plainReason('First'));
          locked();
          await held;
        });
        await holding;
        const second = t.svc.container.intakeRepos.intake.markWaiting(t.db, scope, id, plainReason('Second'));
        const lockWaits = async () =>
          (await t.db.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'"))[0].n;
        try {
          await expect.poll(lockWaits).toBe(1);
        } finally {
          release();
        }
        await first;
        await second;
        expect(await statuses(id)).toEqual(['failed', 'waiting']);
        expect((await t.svc.container.intakeRepos.intake.find(t.db, scope, id))!.record).toMatchObject({ status: 'waiting', reason: 'Second' });
      });
    }
  });
}
