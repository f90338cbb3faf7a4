// The trail's service and table (issue 44): entries are recorded and read back, secrets never
// reach the table, no statement can change or delete an entry, and only the retention purge
// removes entries past their time.
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';

it.override('appOptions', { config: { trailRetentionDays: 30 } });
it.beforeAll(async ({ t }) => void t);

const operator = { kind: 'operator' as const, id: null, label: 'operator' };

describe('TrailService', () => {
  it('records an entry with who, when, from where and what, and reads it back in its scope', async ({ t, acct }) => {
    const before = Date.now();
    const e = await t.c.trail.record({
      scope: { accountId: acct.id, mode: 'live' },
      actor: { kind: 'api_key', id: null, label: 'API key (live)' },
      address: '203.0.113.9',
      action: 'api_key.rotated',
      target: 'live',
      detail: { keyHint: 'abcd', newKey: 'live_secret', nested: { password: 'x', kept: 1 } },
    });
    expect(e.id).toMatch(/^trl_/);
    expect(Date.parse(e.at)).toBeGreaterThanOrEqual(before - 1000);
    const page = await t.c.trail.page({ accountId: acct.id, mode: 'live' }, { limit: 10 });
    expect(page.items).toEqual([e]);
    expect(e).toMatchObject({
      mode: 'live',
      address: '203.0.113.9',
      action: 'api_key.rotated',
      target: 'live',
      detail: { keyHint: 'abcd', nested: { kept: 1 } },
    });
    const [raw] = await t.db.query<{ detail: unknown }>('select detail::text as detail from trail_entries where id = $1', [e.id]);
    expect(String(raw.detail)).not.toMatch(/live_secret|password/);
    // the test mode sees none of the live mode's entries; the whole account's (mode null) both
    expect((await t.c.trail.page({ accountId: acct.id, mode: 'test' }, { limit: 10 })).items).toEqual([]);
    const wide = await t.c.trail.record({ scope: { accountId: acct.id, mode: null }, actor: operator, address: null, action: 'account.disabled' });
    expect((await t.c.trail.page({ accountId: acct.id, mode: 'test' }, { limit: 10 })).items.map((x) => x.id)).toEqual([wide.id]);
    expect((await t.c.trail.page({ accountId: acct.id }, { limit: 10 })).items.map((x) => x.id)).toEqual([wide.id, e.id]);
  });

  it('pages newest first and filters by action, family, actor and time', async ({ t }) => {
    const other = await t.createAccount();
    const ids: string[] = [];
    for (const action of ['user.invited', 'user.removed', 'import.discarded']) {
      ids.push(
        (
          await t.c.trail.record({
            scope: { accountId: other.id, mode: 'live' },
            actor: { kind: 'person', id: 'usr_x', label: 'a@b.example' },
            address: null,
            action,
          })
        ).id,
      );
    }
    const f = { accountId: other.id, mode: 'live' as const };
    const first = await t.c.trail.page(f, { limit: 2 });
    expect(first.items.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    const second = await t.c.trail.page(f, { limit: 2, from: first.next });
    expect(second.items.map((x) => x.id)).toEqual([ids[0]]);
    expect(second.previous).toBe(ids[2]);
    expect((await t.c.trail.page({ ...f, action: 'user' }, { limit: 10 })).items.map((x) => x.action)).toEqual(['user.removed', 'user.invited']);
    expect((await t.c.trail.page({ ...f, action: 'user.invited' }, { limit: 10 })).items).toHaveLength(1);
    expect((await t.c.trail.page({ ...f, actorKind: 'operator' }, { limit: 10 })).items).toHaveLength(0);
    expect((await t.c.trail.page({ ...f, since: new Date(Date.now() + 60_000) }, { limit: 10 })).items).toHaveLength(0);
    await expect(t.c.trail.page(f, { limit: 2, from: 'trl_nosuchentry' })).rejects.toMatchObject({ kind: 'invalid', field: 'from' });
  });

  it('no statement changes or deletes an entry; the purge removes only those past the retention', async ({ t }) => {
    const acc = await t.createAccount();
    const young = await t.c.trail.record({ scope: { accountId: acc.id, mode: 'live' }, actor: operator, address: null, action: 'account.enabled' });
    await expect(t.db.query("update trail_entries set action = 'x.y' where id = $1", [young.id])).rejects.toThrow(/cannot be changed or deleted/);
    await expect(t.db.query('delete from trail_entries where id = $1', [young.id])).rejects.toThrow(/cannot be changed or deleted/);
    await t.db.query(
      "insert into trail_entries (id, account_id, mode, at, actor_kind, actor_label, action) values ('trl_old', $1, 'live', now() - interval '31 days', 'operator', 'operator', 'account.disabled')",
      [acc.id],
    );
    expect(await t.c.trail.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect((await t.c.trail.page({ accountId: acc.id }, { limit: 10 })).items.map((x) => x.id)).toEqual([young.id]);
    // the purge's mark ends with its transaction: a delete after it is refused again
    await expect(t.db.query('delete from trail_entries where id = $1', [young.id])).rejects.toThrow(/cannot be changed or deleted/);
  });
});
