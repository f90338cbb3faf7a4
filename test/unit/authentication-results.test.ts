// The mailbox server's Authentication-Results header (RFC 8601) as a SenderVerdict: believed only
// for the operator's authserv-id, and only above any other server's header.
import { describe, expect, it } from 'vitest';
import { aligned, imapHeaderVerdict, parseAuthenticationResults } from '../../src/domain/authentication-results.ts';
import { verdictInWords } from '../../src/domain/sender-verdict-words.ts';

const TRUSTED = 'mx.invoices.example';

describe('parseAuthenticationResults', () => {
  it('reads the id, each method, its result and properties, without comments', () => {
    const r = parseAuthenticationResults(
      'mx.invoices.example 1; spf=pass (sender SPF authorized) smtp.mailfrom=billing@supplier.example;\r\n\tdkim=pass (2048-bit key) header.d=supplier.example header.s=sel "header.b"=abc;\r\n dmarc=pass (p=reject) header.from=supplier.example',
    );
    expect(r?.authservId).toBe('mx.invoices.example');
    expect(r?.results).toEqual([
      { method: 'spf', result: 'pass', props: { 'smtp.mailfrom': 'billing@supplier.example' } },
      { method: 'dkim', result: 'pass', props: { 'header.d': 'supplier.example', 'header.s': 'sel' } },
      { method: 'dmarc', result: 'pass', props: { 'header.from': 'supplier.example' } },
    ]);
  });

  it('takes `none`, unknown results and junk without throwing', () => {
    expect(parseAuthenticationResults('mx.invoices.example; none')).toEqual({ authservId: 'mx.invoices.example', results: [] });
    expect(parseAuthenticationResults('mx.example; spf=maybe smtp.mailfrom=a@b; ;;=;')?.results).toEqual([]);
    expect(parseAuthenticationResults('')).toBeUndefined();
    expect(parseAuthenticationResults('"quoted.example"; dkim=fail header.d="x.example"')?.results[0]).toEqual({
      method: 'dkim',
      result: 'fail',
      props: { 'header.d': 'x.example' },
    });
  });
});

describe('imapHeaderVerdict', () => {
  const pass = `${TRUSTED}; spf=pass smtp.mailfrom=bounce@mail.supplier.example; dkim=pass header.d=supplier.example; dmarc=pass header.from=supplier.example`;

  it('trusts nobody when no authserv-id is configured', () => {
    const v = imapHeaderVerdict([pass], 'Billing@Supplier.example', undefined);
    expect(v).toMatchObject({ source: 'none', from: 'billing@supplier.example', authenticated: false, dmarc: 'none' });
  });

  it('maps the trusted header: DMARC pass for the From domain authenticates', () => {
    const v = imapHeaderVerdict([pass], 'billing@supplier.example', 'MX.Invoices.Example');
    expect(v).toEqual({
      source: 'imap-header',
      from: 'billing@supplier.example',
      spf: 'pass',
      spfDomain: 'mail.supplier.example',
      dkimPassDomains: ['supplier.example'],
      dmarc: 'pass',
      arc: 'none',
      authenticated: true,
    });
    expect(verdictInWords(v)).toBe(
      "Sender authenticated (From billing@supplier.example): DMARC pass, SPF pass (mail.supplier.example), DKIM pass (supplier.example); checked by the mailbox's server",
    );
  });

  it("ignores another server's header, and a trusted-looking one below it (a stranger can write any header)", () => {
    expect(imapHeaderVerdict([`evil.example; dmarc=pass header.from=supplier.example`], 'billing@supplier.example', TRUSTED).source).toBe('none');
    const forgedBelow = imapHeaderVerdict([`relay.example; spf=none`, pass], 'billing@supplier.example', TRUSTED);
    expect(forgedBelow).toMatchObject({ source: 'none', authenticated: false });
  });

  it('merges several trusted headers at the top (one per milter)', () => {
    const v = imapHeaderVerdict(
      [`${TRUSTED}; dmarc=fail header.from=supplier.example`, `${TRUSTED}; dkim=pass header.d=supplier.example`],
      'a@supplier.example',
      TRUSTED,
    );
    expect(v).toMatchObject({ dmarc: 'fail', dkimPassDomains: ['supplier.example'], authenticated: true });
  });

  it('a pass for another domain than the From does not authenticate (a forged From)', () => {
    const v = imapHeaderVerdict(
      [`${TRUSTED}; spf=pass smtp.mailfrom=x@stranger.example; dkim=pass header.d=stranger.example; dmarc=pass header.from=stranger.example`],
      'ceo@supplier.example',
      TRUSTED,
    );
    expect(v).toMatchObject({ source: 'imap-header', spf: 'pass', dmarc: 'pass', authenticated: false });
    expect(verdictInWords(v)).toMatch(/^Sender not authenticated \(From ceo@supplier.example\): DMARC pass, SPF pass \(stranger.example\)/);
    expect(
      imapHeaderVerdict([`${TRUSTED}; spf=fail smtp.mailfrom=a@supplier.example; dmarc=fail header.from=supplier.example`], 'a@supplier.example', TRUSTED)
        .authenticated,
    ).toBe(false);
  });

  it('relaxed alignment: a domain and its subdomains, never siblings or look-alikes', () => {
    expect(aligned('mail.supplier.example', 'supplier.example')).toBe(true);
    expect(aligned('supplier.example', 'SUPPLIER.example')).toBe(true);
    expect(aligned('other.example', 'supplier.example')).toBe(false);
    expect(aligned('evilsupplier.example', 'supplier.example')).toBe(false);
    expect(aligned('', 'supplier.example')).toBe(false);
  });
});
