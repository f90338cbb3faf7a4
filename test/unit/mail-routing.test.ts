import { describe, expect, it } from 'vitest';
import { addressesIn, recipientCandidates, routeByRecipient } from '../../src/channels/mail/recipient-routing.ts';
import type { Scope } from '../../src/domain/scope.ts';

const headers = (h: Record<string, string[]>) => (name: string) => h[name] ?? [];

describe('recipient candidates', () => {
  it('orders Delivered-To, X-Original-To, To, Cc, topmost occurrence first, without duplicates', () => {
    const c = recipientCandidates(
      headers({
        'delivered-to': ['invoices+aaa@example.com', 'invoices@example.com'],
        'x-original-to': ['invoices+bbb@example.com'],
        to: ['"Books" <invoices+ccc@example.com>, Someone <x@y.example>'],
        cc: ['INVOICES+AAA@example.com, team: a@b.example, c@d.example;'],
      }),
    );
    expect(c).toEqual([
      'invoices+aaa@example.com',
      'invoices@example.com',
      'invoices+bbb@example.com',
      'invoices+ccc@example.com',
      'x@y.example',
      'a@b.example',
      'c@d.example',
    ]);
  });

  it('parses display names with encoded-words and drops what is not an address', () => {
    expect(addressesIn('=?utf-8?Q?M=C3=BCller?= <Mueller@Example.com>, undisclosed-recipients:;')).toEqual(['mueller@example.com']);
  });
});

describe('routing', () => {
  const accounts: Record<string, Scope> = {
    'invoices+live1@example.com': { accountId: 'acc_1', mode: 'live' },
    'invoices+ttest1@example.com': { accountId: 'acc_1', mode: 'test' },
  };
  const lookup = async (a: string) => accounts[a];

  it('takes the first candidate that is an account import address', async () => {
    expect(await routeByRecipient(['x@y.example', 'invoices+ttest1@example.com', 'invoices+live1@example.com'], lookup)).toEqual({
      scope: { accountId: 'acc_1', mode: 'test' },
      address: 'invoices+ttest1@example.com',
    });
  });

  it('says why when no candidate is known, naming the recipients', async () => {
    const r = await routeByRecipient(['invoices+nope@example.com', 'x@y.example'], lookup);
    expect(r.scope).toBeUndefined();
    expect('reason' in r && r.reason).toContain('invoices+nope@example.com, x@y.example');
    const none = await routeByRecipient([], lookup);
    expect('reason' in none && none.reason).toContain('none');
  });
});
