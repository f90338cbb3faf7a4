// The sender checks' DNS cache (channels/mail/dns-cache.ts) in front of the resolver the receiver
// uses, asking dnsmasq on loopback, which logs every query it answers: an answer and a "no such
// record" are asked once while kept and again after, a failure (REFUSED) is never kept, look-ups
// at once share one query, and each caller gets its own copy. The clock is the test's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedResolver } from '../../src/channels/mail/dns-cache.ts';
import { dnsResolver } from '../../src/channels/mail/sender-checks.ts';
import { startDnsServer, type DnsServer } from './dns-server.ts';

let dns: DnsServer;
let resolve: ReturnType<typeof dnsResolver>;
let clock = 0;
const cached = () => cachedResolver(resolve, { ttlMs: 60_000, now: () => clock });

beforeAll(async () => {
  dns = await startDnsServer({ 'sender.example': 'v=spf1 ip4:127.0.0.1 -all', '_dmarc.sender.example': 'v=DMARC1; p=reject' });
  resolve = dnsResolver({ dnsServers: [{ host: '127.0.0.1', port: dns.port }], dnsTimeoutMs: 1000 });
});

afterAll(async () => {
  await dns?.stop();
});

describe('DNS answers kept for the sender checks', () => {
  it('asks for an answer once while it is kept, and again once its time is over', async () => {
    const look = cached();
    const before = dns.queries('TXT', '_dmarc.sender.example');
    expect(await look('_dmarc.sender.example', 'TXT')).toEqual([['v=DMARC1; p=reject']]);
    clock += 59_000;
    expect(await look('_DMARC.Sender.example', 'TXT')).toEqual([['v=DMARC1; p=reject']]);
    expect(dns.queries('TXT', '_dmarc.sender.example')).toBe(before + 1);
    clock += 1_000;
    expect(await look('_dmarc.sender.example', 'TXT')).toEqual([['v=DMARC1; p=reject']]);
    expect(dns.queries('TXT', '_dmarc.sender.example')).toBe(before + 2);
  });

  it('keeps "no such record" like an answer, with the resolver\'s error code', async () => {
    const look = cached();
    const first = await look('nobody.example', 'TXT').catch((e) => e);
    const second = await look('nobody.example', 'TXT').catch((e) => e);
    expect(first.code).toBe('ENOTFOUND');
    expect(second.code).toBe('ENOTFOUND');
    expect(second).not.toBe(first);
    expect(dns.queries('TXT', 'nobody.example')).toBe(1);
  });

  it('never keeps a failure: the next look-up asks again', async () => {
    const look = cached();
    // dnsmasq serves nothing under .invalid and has no upstream: REFUSED
    const first = await look('sender.invalid', 'TXT').catch((e) => e);
    const second = await look('sender.invalid', 'TXT').catch((e) => e);
    expect(first.code).toBe('EREFUSED');
    expect(second.code).toBe('EREFUSED');
    expect(dns.queries('TXT', 'sender.invalid')).toBe(2);
  });

  it('look-ups of one record at once share one query, and each caller gets its own copy', async () => {
    const look = cached();
    const before = dns.queries('TXT', 'sender.example');
    const answers = await Promise.all(Array.from({ length: 8 }, () => look('sender.example', 'TXT')));
    expect(dns.queries('TXT', 'sender.example')).toBe(before + 1);
    (answers[0] as string[][])[0][0] = 'changed by a caller';
    expect(answers[1]).toEqual([['v=spf1 ip4:127.0.0.1 -all']]);
    expect(await look('sender.example', 'TXT')).toEqual([['v=spf1 ip4:127.0.0.1 -all']]);
  });

  it('with 0 keeps nothing', async () => {
    const look = cachedResolver(resolve, { ttlMs: 0 });
    const before = dns.queries('TXT', '_dmarc.sender.example');
    await look('_dmarc.sender.example', 'TXT');
    await look('_dmarc.sender.example', 'TXT');
    expect(dns.queries('TXT', '_dmarc.sender.example')).toBe(before + 2);
  });
});
