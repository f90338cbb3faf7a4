import dns from 'node:dns';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newSecret } from '../../src/services/webhook-service.ts';
import { checkWebhookUrl, isBlockedAddress, urlProblem } from '../../src/services/webhook-url.ts';
import { postWebhook } from '../../src/webhooks/http-delivery.ts';
import { signatureHeaders } from '../../src/webhooks/signature.ts';
import { webhookBackoff, webhookJobOptions } from '../../src/webhooks/webhook-queue.ts';

describe('webhook signatures', () => {
  it('verify with the standardwebhooks package, with each of two secrets', () => {
    const [a, b] = [newSecret(), newSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { amount: '1.00', name: 'Zoë' } });
    const headers = signatureHeaders([a, b], 'evt_1', body);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(new Webhook(a).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(new Webhook(b).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
    // the package's own signature is ours
    expect(new Webhook(a).sign('evt_1', new Date(Number(headers['webhook-timestamp']) * 1000), body)).toBe(headers['webhook-signature'].split(' ')[0]);
  });
});

describe('webhook addresses', () => {
  it('blocks loopback, private, link-local, metadata and reserved addresses, also inside IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.100.100.200',
      '168.63.129.16',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a9fe:a9fe',
      '224.0.0.1',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']) expect(isBlockedAddress(a), a).toBe(false);
  });

  // IANA's IPv6 special-purpose registry and every form that carries an IPv4 address (issue 49)
  const IPV6_BLOCKED: [string, string][] = [
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['::127.0.0.1', 'IPv4-compatible, dotted'],
    ['::808:808', 'IPv4-compatible, even a public address (deprecated form)'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated, dotted'],
    ['::ffff:0:a00:1', 'IPv4-translated 10/8'],
    ['::ffff:a9fe:a9fe', 'mapped metadata'],
    ['::ffff:c0a8:1', 'mapped 192.168/16'],
    ['64:ff9b::7f00:1', 'NAT64 loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['64:ff9b:1::8.8.8.8', 'local-use NAT64'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64 /48'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:a9fe:a9fe::', '6to4 of metadata'],
    ['2002:c0a8:101::1', '6to4 of 192.168/16'],
    ['fc00::1', 'unique local'],
    ['fdff:ffff::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local end'],
    ['fec0::1', 'site-local (deprecated)'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, long'],
    ['::', 'unspecified'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'global multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['100::1', 'discard-only'],
    ['2001::1', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['5f00::1', 'SRv6 SIDs'],
    ['4000::1', 'outside global unicast'],
    ['::2', 'reserved ::/8'],
    ['fe80::1%eth0', 'scoped'],
    ['not-an-address', 'not an address'],
  ];
  it.each(IPV6_BLOCKED)('blocks %s (%s)', (addr) => expect(isBlockedAddress(addr)).toBe(true));

  it('lets public IPv6 through, and the forms that embed a public IPv4 address judged by it', () => {
    for (const a of [
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '64:ff9b::8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '::ffff:0:8.8.8.8',
    ]) {
      expect(isBlockedAddress(a), a).toBe(false);
    }
  });

  it('judges an IPv6 address the same however it is written (full, compressed by the URL parser, dotted tail)', () => {
    const word = fc.oneof(
      fc.constant(0),
      fc.constant(0xffff),
      fc.constant(0x2002),
      fc.constant(0x64),
      fc.constant(0xff9b),
      fc.integer({ min: 0, max: 0xffff }),
    );
    fc.assert(
      fc.property(fc.array(word, { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map((g) => g.toString(16)).join(':');
        const compressed = new URL(`http://[${full}]/`).hostname.slice(1, -1);
        const dotted = `${groups
          .slice(0, 6)
          .map((g) => g.toString(16))
          .join(':')}:${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
        expect(isBlockedAddress(compressed)).toBe(isBlockedAddress(full));
        expect(isBlockedAddress(dotted)).toBe(isBlockedAddress(full));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses the IPv6 forms in a URL literal, as the URL parser writes them', () => {
    for (const url of [
      'http://[::7f00:1]/',
      'http://[::ffff:0:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[2002:7f00:1::]/',
      'http://[fd00::1]/',
      'http://[3fff::1]/',
    ]) {
      expect(urlProblem(url, 'test', { allowPrivate: false }), url).toMatch(/loopback, private, link-local or reserved/);
    }
    expect(urlProblem('https://[2606:4700:4700::1111]/', 'live', { allowPrivate: false })).toBeUndefined();
  });

  it('live needs https; the flag lifts both rules', () => {
    expect(urlProblem('http://93.184.215.14/', 'live', { allowPrivate: false })).toMatch(/https/);
    expect(urlProblem('http://93.184.215.14/', 'test', { allowPrivate: false })).toBeUndefined();
    expect(urlProblem('http://127.0.0.1:1/', 'live', { allowPrivate: true })).toBeUndefined();
    expect(urlProblem('ftp://x.example/', 'test', { allowPrivate: true })).toMatch(/https/);
    expect(urlProblem('https://u:p@x.example/', 'live', { allowPrivate: false })).toMatch(/password/);
  });

  it('refuses at delivery time too, and follows no redirect', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: 'http://93.184.215.14/' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const refused = await postWebhook(url, 'test', {}, '{}', { allowPrivate: false }, 1000);
    expect(refused).toMatchObject({ statusCode: null, success: false, error: expect.stringMatching(/loopback/) });
    expect(hits).toBe(0);
    const redirected = await postWebhook(url, 'test', {}, '{}', { allowPrivate: true }, 1000);
    expect(redirected).toMatchObject({ statusCode: 302, success: false });
    expect(hits).toBe(1);
    server.closeAllConnections();
    server.close();
  });

  it('judges the address a name resolves to at delivery (a name that passes the URL check but resolves to loopback)', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(200).end('x'.repeat(5000));
    });
    // the machine's own name: not a name the URL check knows, but /etc/hosts points it at this machine
    const name = os.hostname();
    const { address } = await dns.promises.lookup(name);
    expect(isBlockedAddress(address)).toBe(true);
    await new Promise<void>((r) => server.listen(0, address, r));
    const port = (server.address() as AddressInfo).port;
    expect(urlProblem(`http://${name}:${port}/hook`, 'test', { allowPrivate: false })).toBeUndefined();
    const refused = await postWebhook(`http://${name}:${port}/hook`, 'test', {}, '{}', { allowPrivate: false }, 1000);
    expect(refused).toMatchObject({ statusCode: null, success: false, error: expect.stringMatching(/resolves only to loopback, private/) });
    expect(hits).toBe(0);
    await expect(checkWebhookUrl(`https://${name}/hook`, 'test', { allowPrivate: false })).rejects.toMatchObject({ kind: 'unprocessable', field: 'url' });
    // with the flag it goes through; the log keeps the first 1 KB of the answer
    const allowed = await postWebhook(`http://${name}:${port}/hook`, 'test', {}, '{}', { allowPrivate: true }, 1000);
    expect(allowed).toMatchObject({ statusCode: 200, success: true });
    expect(allowed.response).toHaveLength(1024);
    server.closeAllConnections();
    server.close();
  });
});

describe('webhook timeout', () => {
  it('an endpoint that does not answer within the timeout is a failed attempt', async () => {
    const server = http.createServer(() => {}); // takes the request, never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    const result = await postWebhook(url, 'test', {}, '{}', { allowPrivate: true }, 300);
    expect(result).toMatchObject({ statusCode: null, success: false, error: 'No answer within 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    server.closeAllConnections();
    server.close();
  });
});

describe('webhook retries', () => {
  it('back off exponentially with jitter, and have attempts enough for the whole window', () => {
    const config = { webhookBackoffMs: 10_000, webhookBackoffMaxMs: 7_200_000, webhookRetryWindowMs: 3 * 86_400_000 };
    const low = webhookBackoff(config, () => 0);
    const high = webhookBackoff(config, () => 1);
    expect([1, 2, 3, 4].map(low)).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(high(1)).toBe(10_000);
    expect(high(40)).toBe(7_200_000);
    // the slowest pace (every step at its shortest) still spans the window before attempts run out
    const attempts = webhookJobOptions(config).attempts!;
    let total = 0;
    for (let i = 1; i < attempts; i++) total += low(i);
    expect(total).toBeGreaterThan(config.webhookRetryWindowMs);
  });
});
