// The trail, kind by kind (issue 44): each kind of change is made once, by the actor that makes it
// in practice (a person in the dashboard, the mode's API key, the operator), and its entry is read
// back both through the dashboard (the Trail page's HTML and its CSV, as the owner) and through
// GET /admin/accounts/{id}/trail, with who, when, from where and what, and none of the secrets the
// change involved (new keys, the TOTP secret, the invite link, SSH key material) in any of them.
// One service start, one account; real HTTP, real sign-in.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import { formClient, type FormClient } from './form-client.ts';
import { csvRows, trailKinds, type Actor } from './trail-kinds.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let owner: FormClient;
let ownerWho: { email: string; password: string };
let dir: string;
const started = Date.now();

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  ownerWho = await t.person(acct.id, await (await t.browser.newContext()).newPage());
  owner = formClient(t.url);
  expect((await owner.signIn(ownerWho)).status).toBe(303);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-trail-kinds-'));
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the trail, kind by kind, in the dashboard and the admin API', () => {
  it('each kind of change made once is read back with who, when, where and what, and no secret', async () => {
    const KINDS = trailKinds(t, acct, owner, ownerWho, dir);
    const made = new Map<string, { target: string | null; secrets: string[] }>();
    for (const kind of KINDS) made.set(kind.action, await kind.make());
    // disabling the account ended the owner's session: a fresh sign-in reads the trail
    owner = formClient(t.url);
    expect((await owner.signIn(ownerWho)).status).toBe(303);
    const secrets = [...made.values()].flatMap((m) => m.secrets).filter(Boolean);
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    const label = (a: Actor) => ({ person: ownerWho.email, api_key: 'API key (live)', operator: 'operator' })[a];

    for (const kind of KINDS) {
      const { target } = made.get(kind.action)!;
      const why = kind.action;
      // the operator: GET /admin/accounts/{id}/trail, this kind only
      const admin = await t.api('GET', `/admin/accounts/${acct.id}/trail?action=${kind.action}`, { auth: 'admin' });
      expect(admin.status, why).toBe(200);
      // (the operator's invite of the owner is a user.invited entry too: the change's own target picks it)
      const mine = admin.body.trail.filter((e: { target: string | null }) => e.target === target);
      expect(mine, why).toHaveLength(1);
      const [entry] = mine;
      expect(entry, why).toMatchObject({ action: kind.action, mode: kind.mode, target, actor: { kind: kind.actor, label: label(kind.actor) } });
      expect(entry.address, why).toMatch(/127\.0\.0\.1/);
      expect(Date.parse(entry.at), why).toBeGreaterThanOrEqual(started - 1000);
      expect(Date.parse(entry.at), why).toBeLessThanOrEqual(Date.now());

      // the owner: the Trail page's CSV, the same entry
      const csv = await owner.get(`/dashboard/trail.csv?action=${kind.action}`);
      expect(csv.status, why).toBe(200);
      const [header, ...rows] = csvRows(csv.body);
      expect(header).toEqual(['at', 'mode', 'actor_kind', 'actor', 'address', 'action', 'target', 'detail']);
      expect(rows.length, why).toBe(admin.body.trail.length);
      const own = rows.filter((r) => r[6] === (target ?? ''));
      expect(own, why).toHaveLength(1);
      const [at, mode, actorKind, actor, address, action, shown] = own[0];
      expect([mode, actorKind, actor, action, shown], why).toEqual([kind.mode ?? '', kind.actor, label(kind.actor), kind.action, target ?? '']);
      expect(address, why).toMatch(/127\.0\.0\.1/);
      expect(Date.parse(at), why).toBe(Date.parse(entry.at));

      // the owner: the Trail page itself, one row with when, what, target, who and where
      const html = await owner.get(`/dashboard/trail?action=${kind.action}`);
      expect(html.status, why).toBe(200);
      const trs = [...html.body.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].flatMap((m) =>
        [...m[1].matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1].matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1].trim())),
      );
      expect(trs.length, why).toBe(admin.body.trail.length);
      const ownRows = trs.filter((r) => r[2] === (target ?? ''));
      expect(ownRows, why).toHaveLength(1);
      const [when, what, targetCell, who, where] = ownRows[0];
      expect(when, why).toMatch(/\d/);
      expect(what, why).not.toBe(kind.action); // a sentence, not the code
      expect(targetCell, why).toBe(target ?? '');
      expect(who, why).toContain(kind.actor === 'person' ? ownerWho.email : kind.actor === 'api_key' ? 'API key' : 'operator');
      expect(where, why).toMatch(/127\.0\.0\.1/);
    }

    // no secret anywhere: the whole trail through both doors
    const everything = [
      JSON.stringify((await t.api('GET', `/admin/accounts/${acct.id}/trail?limit=100`, { auth: 'admin' })).body),
      (await owner.get('/dashboard/trail.csv')).body,
      (await owner.get('/dashboard/trail')).body,
    ].join('\n');
    for (const s of secrets) expect(everything.includes(s), `a secret of ${[...made].find(([, m]) => m.secrets.includes(s))?.[0]}`).toBe(false);
  }, 120_000);
});
