// The trail's kinds of change (issue 44) for dashboard-trail-kinds.test.ts: each made once, by the
// actor that makes it in practice, returning the entry's target and the secrets the change involved.
import fs from 'node:fs';
import { expect } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { sshKeygen } from '../sftp/sftp-harness.ts';
import { totp, type DashboardApp } from './dashboard-harness.ts';
import type { FormClient } from './form-client.ts';

export type Actor = 'person' | 'api_key' | 'operator';
interface Kind {
  action: string;
  actor: Actor;
  mode: 'live' | null;
  /** makes the change once; returns the entry's target and the secrets it involved */
  make: () => Promise<{ target: string | null; secrets: string[] }>;
}

/** The kinds, in the order they are made, on the test's service, account, signed-in owner and scratch folder. */
export function trailKinds(
  t: DashboardApp,
  acct: Awaited<ReturnType<DashboardApp['account']>>,
  owner: FormClient,
  ownerWho: { email: string; password: string },
  dir: string,
): Kind[] {
  let liveKey = acct.liveKey;
  const api = async (method: string, url: string, body?: unknown, auth = liveKey) => {
    const res = await t.api(method, url, { auth, body });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  /** a dashboard form as the owner (the page first: its CSRF token), answered with a redirect */
  const form = async (page: string, action: string, body: Record<string, string> = {}) => {
    await owner.get(page);
    const res = await owner.post(action, body);
    expect(res.status, `${action}: ${res.body}`).toBe(303);
    return owner.get(page);
  };
  const upload = async (filename: string) =>
    (await api('POST', '/v2/imports', { filename, content: (await makePdf(filename)).toString('base64') })).id as string;

  const state: { uploadKeyId?: string; sshKeyId?: string; colleagueId?: string; colleague?: string; totpSecret?: string } = {};
  const colleague = `c${randomToken(8).toLowerCase()}@example.com`;

  return [
    {
      action: 'api_key.rotated',
      actor: 'operator',
      mode: 'live',
      make: async () => {
        liveKey = (await api('POST', `/admin/accounts/${acct.id}/keys/live`, undefined, 'admin')).key;
        return { target: 'live', secrets: [liveKey, acct.liveKey] };
      },
    },
    {
      action: 'upload_key.created',
      actor: 'person',
      mode: 'live',
      make: async () => {
        const page = (await form('/dashboard/settings', '/dashboard/settings/upload-keys', { name: 'Ricoh 3rd floor', networks: '127.0.0.0/8' })).body;
        const key = /id="new-upload-key">([^<]+)</.exec(page)![1];
        state.uploadKeyId = /<tr data-id="(upk_\w+)">/.exec(page)![1];
        return { target: state.uploadKeyId, secrets: [key] };
      },
    },
    {
      action: 'upload_key.ssh_key_added',
      actor: 'api_key',
      mode: 'live',
      make: async () => {
        const pair = await sshKeygen(dir);
        state.sshKeyId = (await api('POST', `/v2/account/upload-keys/${state.uploadKeyId}/ssh-keys`, { publicKey: pair.publicKey })).id;
        return { target: state.uploadKeyId!, secrets: [pair.publicKey.split(' ')[1], fs.readFileSync(pair.file, 'utf8').split('\n')[1]] };
      },
    },
    {
      action: 'upload_key.ssh_key_removed',
      actor: 'person',
      mode: 'live',
      make: async () => {
        const page = `/dashboard/settings/upload-keys/${state.uploadKeyId}`;
        await form(page, `${page}/ssh-keys/${state.sshKeyId}/remove`);
        return { target: state.uploadKeyId!, secrets: [] };
      },
    },
    {
      action: 'upload_key.revoked',
      actor: 'api_key',
      mode: 'live',
      make: async () => {
        await api('DELETE', `/v2/account/upload-keys/${state.uploadKeyId}`);
        return { target: state.uploadKeyId!, secrets: [] };
      },
    },
    {
      action: 'senders.changed',
      actor: 'person',
      mode: 'live',
      make: async () => {
        await form('/dashboard/settings', '/dashboard/settings/senders', { policy: 'listed', senders: '@known.example' });
        return { target: null, secrets: [] };
      },
    },
    {
      action: 'import.assigned',
      actor: 'api_key',
      mode: 'live',
      make: async () => {
        const id = await upload('nothing-like-it-1.pdf');
        const customer = await api('POST', '/v2/customers', { customerCode: `C-${randomToken(4)}`, name: 'Trail BV' });
        const invoice = await api('POST', '/v2/invoices', {
          customer: customer.id,
          invoiceNumber: `F-${randomToken(5)}`,
          invoiceDate: '01-02-2026',
          invoiceDuedate: '01-03-2026',
          invoiceTotal: '100.00',
        });
        await api('POST', `/v2/imports/${id}/attach`, { invoice: invoice.invoiceNumber });
        return { target: id, secrets: [] };
      },
    },
    {
      action: 'import.retried',
      actor: 'api_key',
      mode: 'live',
      make: async () => {
        const id = await upload('nothing-like-it-2.pdf');
        await api('POST', `/v2/imports/${id}/retry`);
        return { target: id, secrets: [] };
      },
    },
    {
      action: 'import.discarded',
      actor: 'person',
      mode: 'live',
      make: async () => {
        const id = await upload('nothing-like-it-3.pdf');
        await form(`/dashboard/files/${id}`, `/dashboard/files/${id}/discard`, { confirm: 'yes' });
        return { target: id, secrets: [] };
      },
    },
    {
      action: 'import.released',
      actor: 'person',
      mode: 'live',
      make: async () => {
        const held = await t.svc.container.intake.receive({
          scope: { accountId: acct.id, mode: 'live' },
          channel: 'mail',
          sender: 'ap@new.example',
          filename: 'held.pdf',
          bytes: await makePdf('held'),
          hold: intakeReason('held_sender_not_listed', { sender: 'ap@new.example' }),
        });
        await form(`/dashboard/files/${held.id}`, `/dashboard/files/${held.id}/release`, { addSender: 'yes' });
        return { target: held.id, secrets: [] };
      },
    },
    {
      action: 'user.invited',
      actor: 'person',
      mode: null,
      make: async () => {
        const page = (await form('/dashboard/people', '/dashboard/people', { email: colleague })).body;
        const link = /id="invite-link"[^>]*>([^<]+)</.exec(page)![1];
        const password = `pw-${randomToken(16)}`;
        state.colleagueId = (await t.svc.container.users.acceptInvite(link.split('/').pop()!, password)).id;
        return { target: colleague, secrets: [link.split('/').pop()!, password] };
      },
    },
    {
      action: 'user.role_changed',
      actor: 'person',
      mode: null,
      make: async () => {
        await form('/dashboard/people', `/dashboard/people/${state.colleagueId}/role`, { role: 'owner' });
        return { target: colleague, secrets: [] };
      },
    },
    {
      action: 'user.removed',
      actor: 'person',
      mode: null,
      make: async () => {
        await form('/dashboard/people', `/dashboard/people/${state.colleagueId}/remove`, { confirm: 'yes' });
        return { target: colleague, secrets: [] };
      },
    },
    {
      action: 'second_factor.enabled',
      actor: 'person',
      mode: null,
      make: async () => {
        const page = (await form('/dashboard/settings', '/dashboard/settings/second-factor/setup')).body;
        state.totpSecret = /id="totp-secret"[^>]*>([A-Z2-7]+)</.exec(page)![1];
        const on = (await form('/dashboard/settings', '/dashboard/settings/second-factor', { secret: state.totpSecret, code: totp(state.totpSecret) })).body;
        const codes = [.../<ol class="recovery-codes" id="recovery-codes">([\s\S]*?)<\/ol>/.exec(on)![1].matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]);
        expect(codes.length).toBeGreaterThan(0);
        return { target: ownerWho.email, secrets: [state.totpSecret, ...codes] };
      },
    },
    {
      action: 'second_factor.disabled',
      actor: 'person',
      mode: null,
      make: async () => {
        // a code of the next step: each code is accepted once
        await form('/dashboard/settings', '/dashboard/settings/second-factor/off', { code: totp(state.totpSecret!, Date.now() + 30_000) });
        return { target: ownerWho.email, secrets: [state.totpSecret!] };
      },
    },
    {
      action: 'account.disabled',
      actor: 'operator',
      mode: null,
      make: async () => {
        await api('PATCH', `/admin/accounts/${acct.id}`, { disabled: true }, 'admin');
        return { target: acct.id, secrets: [] };
      },
    },
    {
      action: 'account.enabled',
      actor: 'operator',
      mode: null,
      make: async () => {
        await api('PATCH', `/admin/accounts/${acct.id}`, { disabled: false }, 'admin');
        return { target: acct.id, secrets: [] };
      },
    },
  ];
}

/** RFC 4180 rows (quoted fields with "" inside) */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.trim().split('\r\n')) {
    const cells: string[] = [];
    for (const m of line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)) cells.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]);
    rows.push(cells);
  }
  return rows;
}
