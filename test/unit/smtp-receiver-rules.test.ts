// The SMTP receiver's pure rules: mailauth's results as a SenderVerdict, the dedupe key, and
// SMTP_LISTEN's syntax.
import { describe, expect, it } from 'vitest';
import { authResult, verdictOf } from '../../src/channels/mail/sender-checks.ts';
import { dedupeKey } from '../../src/channels/mail/smtp-receiver.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

type Result = Parameters<typeof verdictOf>[0];
const result = (o: { from?: string[]; fields?: number; spf?: string; spfDomain?: string; dkim?: [string, string][]; dmarc?: string | false }): Result =>
  ({
    spf: { domain: o.spfDomain ?? 'b.example', status: { result: o.spf ?? 'none' } },
    dkim: {
      headerFrom: o.from ?? ['a@b.example'],
      fromFields: o.fields ?? 1,
      envelopeFrom: false,
      results: (o.dkim ?? []).map(([domain, r]) => ({ signingDomain: domain, status: { result: r } })),
    },
    dmarc: o.dmarc === false ? false : { status: { result: o.dmarc ?? 'none' } },
    arc: false,
  }) as unknown as Result;

describe('sender verdict from mailauth', () => {
  it('authenticated by DMARC pass, or an aligned SPF or DKIM pass (relaxed: a subdomain aligns)', () => {
    expect(verdictOf(result({ dmarc: 'pass' })).authenticated).toBe(true);
    expect(verdictOf(result({ spf: 'pass', spfDomain: 'mail.b.example' })).authenticated).toBe(true);
    expect(verdictOf(result({ dkim: [['b.example', 'pass']] }))).toMatchObject({ authenticated: true, dkimPassDomains: ['b.example'] });
  });

  it('not authenticated: a pass for another domain, a failed signature, several From addresses or fields, no From', () => {
    expect(verdictOf(result({ spf: 'pass', spfDomain: 'other.example', dkim: [['other.example', 'pass']] })).authenticated).toBe(false);
    expect(verdictOf(result({ dkim: [['b.example', 'fail']] }))).toMatchObject({ authenticated: false, dkimPassDomains: [] });
    expect(verdictOf(result({ from: ['a@b.example', 'c@d.example'], dmarc: 'pass' })).authenticated).toBe(false);
    expect(verdictOf(result({ fields: 2, dmarc: 'pass' })).authenticated).toBe(false);
    expect(verdictOf(result({ from: [], dmarc: false }))).toMatchObject({ from: '', dmarc: 'none', authenticated: false });
  });

  it('keeps the result keywords ours has; temperr is temperror, skipped and unknown ones none', () => {
    expect(['pass', 'softfail', 'temperr', 'skipped', 'bogus', undefined].map(authResult)).toEqual(['pass', 'softfail', 'temperror', 'none', 'none', 'none']);
  });
});

describe('dedupe key', () => {
  it('is the same for the same bytes, and differs when the Message-ID or the body differs', () => {
    const raw = (id: string, body: string) => Buffer.from(`Message-ID: <${id}@x.example>\r\nSubject: s\r\n\r\n${body}\r\n`);
    expect(dedupeKey(raw('1', 'a'))).toBe(dedupeKey(raw('1', 'a')));
    expect(dedupeKey(raw('1', 'a'))).not.toBe(dedupeKey(raw('2', 'a')));
    expect(dedupeKey(raw('1', 'a'))).not.toBe(dedupeKey(raw('1', 'b')));
  });
});

describe('SMTP_LISTEN', () => {
  it('host:port (IPv6 in brackets) or off; anything else is a config problem naming it', () => {
    expect(loadConfig({}).smtpListen).toEqual({ host: '127.0.0.1', port: 2525 });
    expect(loadConfig({ SMTP_LISTEN: '0.0.0.0:25' }).smtpListen).toEqual({ host: '0.0.0.0', port: 25 });
    expect(loadConfig({ SMTP_LISTEN: '[::1]:2525' }).smtpListen).toEqual({ host: '::1', port: 2525 });
    expect(loadConfig({ SMTP_LISTEN: 'OFF' }).smtpListen).toBe('off');
    for (const bad of ['2525', 'host:99999', 'a:b']) {
      let problems: string[] = [];
      try {
        loadConfig({ SMTP_LISTEN: bad });
      } catch (e) {
        if (e instanceof ConfigError) problems = e.problems;
      }
      expect(problems).toEqual([`SMTP_LISTEN must be host:port or off, got "${bad}"`]);
    }
  });
});
