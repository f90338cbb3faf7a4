// The SMTP receiver (issue 43) with real clients as processes: swaks and Python's smtplib. A
// message for an import address becomes imports through the mail pipeline (attached when its
// name is an invoice number); RCPT TO for any other address is 550 5.1.1 at once; SIZE is
// advertised and enforced (552); a silent client is cut off; the per-address and per-sender
// limits answer 421 and 450; a DATA that trickles past SMTP_DATA_TIMEOUT_MS gets 451 4.4.2 and
// leaves nothing; a message sent twice is imported once.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../../testkit/pdf.ts';
import { startMailHarness, type MailHarness } from './mail-harness.ts';
import { python, SMTPLIB_SEND, swaks } from './smtp-clients.ts';

let h: MailHarness;
let port: number;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-smtp-'));

beforeAll(async () => {
  h = await startMailHarness({
    config: {
      roles: ['api', 'worker', 'smtp'],
      mailMaxMessageBytes: 256 * 1024,
      smtpIdleTimeoutMs: 800,
      smtpDataTimeoutMs: 4000,
      smtpMaxConnectionsPerIp: 4,
      smtpMessagesPerSenderPerHour: 3,
    },
  });
  port = h.svc.smtpPort!;
}, 120_000);

afterAll(async () => {
  await h?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The claim row and imports of the message with this Message-ID, once each import is final. */
const settledFor = (messageId: string) => h.settledRecords(messageId, 60_000);

const messageFile = async (to: string, attachments: { filename: string; content: Buffer }[], messageId: string, from = 'accounts@supplier.example') => {
  const raw = await new MailComposer({ from, to, subject: 'Invoice', text: 'Attached.', messageId, attachments }).compile().build();
  const p = path.join(tmp, `${messageId.replace(/\W/g, '')}.eml`);
  fs.writeFileSync(p, raw);
  return p;
};

describe('SMTP receiver', () => {
  it('swaks: a PDF named after an invoice number is attached; the message is recorded as transport smtp with its envelope and verdict', async () => {
    const a = await h.account();
    const inv = await h.invoice(a.liveKey);
    const messageId = `<swaks-${Date.now()}@supplier.example>`;
    const sent = await swaks(port, {
      to: a.live,
      files: [{ name: `${inv.invoiceNumber}.pdf`, bytes: await makePdf('swaks') }],
      extra: ['--header', `Message-Id: ${messageId}`],
    });
    expect(sent.out).toMatch(/<- {2}250 2\.6\.0 Ok: queued as msg_\w+/);
    expect(sent.code).toBe(0);
    const { row, records } = await settledFor(messageId);
    expect(row.transport).toBe('smtp');
    // no folder to move it to: staged and moved by one statement (one now())
    expect(row.moved_at).toEqual(row.staged_at);
    // the pipeline got the receiver's own verdict (not one read from the message's headers)
    expect(row.sender_verdict).toMatchObject({ source: 'smtp', from: 'accounts@supplier.example', authenticated: false });
    expect(records.map((r) => [r.status, r.filename, r.invoiceId])).toEqual([['attached', `${inv.invoiceNumber}.pdf`, inv.id]]);
    const [stored] = await h.db.query<any>('select * from smtp_messages where rcpt_to @> array[$1]::text[]', [a.live.toLowerCase()]);
    expect(stored).toMatchObject({ mail_from: 'accounts@supplier.example', client_ip: '127.0.0.1', helo: 'client.supplier.example', tls: false });
    expect(stored.processed_at).toBeInstanceOf(Date);
    // nobody vouches for supplier.example here (no DNS records): never authenticated
    expect(stored.verdict).toMatchObject({ source: 'smtp', authenticated: false, dkimPassDomains: [] });
  }, 90_000);

  it('swaks over STARTTLS (TLS 1.2 or higher) is received the same', async () => {
    const a = await h.account();
    const inv = await h.invoice(a.liveKey);
    const messageId = `<tls-${Date.now()}@supplier.example>`;
    const sent = await swaks(port, {
      to: a.live,
      files: [{ name: `${inv.invoiceNumber}.pdf`, bytes: await makePdf('tls') }],
      extra: ['--tls', '--header', `Message-Id: ${messageId}`],
    });
    expect(sent.out).toMatch(/TLS started with cipher TLSv1\.[23]/);
    expect(sent.out).toMatch(/<~ {2}250 2\.6\.0 Ok: queued/);
    const { records } = await settledFor(messageId);
    expect(records.map((r) => r.status)).toEqual(['attached']);
    expect((await h.db.query<any>('select tls from smtp_messages where rcpt_to @> array[$1]::text[]', [a.live.toLowerCase()]))[0].tls).toBe(true);
  }, 90_000);

  it("unknown, malformed and disabled accounts' recipients get 550 5.1.1 at RCPT, before any data", async () => {
    const a = await h.account();
    const unknown = await swaks(port, { to: 'invoices+nobody0000@example.com', extra: ['--quit-after', 'RCPT'] });
    expect(unknown.out).toMatch(/<\*\* 550 5\.1\.1 No such import address: invoices\+nobody0000@example\.com/);
    const stranger = await python(SMTPLIB_SEND, [
      String(port),
      'a@supplier.example',
      'someone@elsewhere.example',
      await messageFile('someone@elsewhere.example', [], '<x1@supplier.example>'),
    ]);
    expect(stranger.out.trim()).toBe('RCPT 550 5.1.1 No such import address: someone@elsewhere.example');
    expect((await h.request('PATCH', `/admin/accounts/${a.id}`, { admin: true, body: { disabled: true } })).status).toBe(200);
    const disabled = await swaks(port, { to: a.live, extra: ['--quit-after', 'RCPT'] });
    expect(disabled.out).toMatch(/<\*\* 550 5\.1\.1 No such import address/);
    expect((await h.db.query<any>('select count(*)::int as n from smtp_messages where $1 = any(rcpt_to)', [a.live.toLowerCase()]))[0].n).toBe(0);
  }, 60_000);

  it('advertises SIZE and refuses a larger message with 552: at MAIL FROM (smtplib declares it) and after DATA (swaks does not)', async () => {
    const a = await h.account();
    const big = await makePdf('big', 300 * 1024);
    const ehlo = await swaks(port, { to: a.live, extra: ['--quit-after', 'EHLO'] });
    expect(ehlo.out).toContain(`SIZE ${256 * 1024}`);
    const declared = await python(SMTPLIB_SEND, [
      String(port),
      'a@supplier.example',
      a.live,
      await messageFile(a.live, [{ filename: 'big.pdf', content: big }], '<big1@supplier.example>'),
    ]);
    expect(declared.out.trim()).toMatch(/^MAIL 552 5\.3\.4 /);
    const undeclared = await swaks(port, { to: a.live, files: [{ name: 'big.pdf', bytes: big }] });
    expect(undeclared.out).toMatch(/<\*\* 552 5\.[23]\.\d /);
    expect((await h.db.query<any>('select count(*)::int as n from smtp_messages where $1 = any(rcpt_to)', [a.live.toLowerCase()]))[0].n).toBe(0);
  }, 60_000);

  it('a client that falls silent is disconnected with 421 after SMTP_IDLE_TIMEOUT_MS', async () => {
    // Python connects, says EHLO and MAIL FROM, then only listens until the server hangs up
    const slow = await python(
      `
import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
f = s.makefile('rb')
f.readline()
s.sendall(b'EHLO slow.example\\r\\n')
while not f.readline().startswith(b'250 '): pass
start = time.monotonic()
rest = f.read()
print(round(time.monotonic() - start, 1), rest.decode().strip())
`,
      [String(port)],
      20_000,
    );
    const [seconds, ...reply] = slow.out.trim().split(' ');
    expect(reply.join(' ')).toMatch(/^421 /);
    expect(Number(seconds)).toBeGreaterThanOrEqual(0.7);
    expect(Number(seconds)).toBeLessThan(10);
  }, 30_000);

  it('a DATA that trickles (each line within the idle timeout) past SMTP_DATA_TIMEOUT_MS: 451 4.4.2, the connection closed, nothing kept', async () => {
    const a = await h.account();
    const before = (await h.db.query<{ n: number }>('select count(*)::int as n from smtp_messages'))[0].n;
    // Python sends a header line every 250 ms (the idle timeout is 800 ms) and never the final dot
    const slow = await python(
      `
import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
f = s.makefile('rb')
def reply():
    while True:
        line = f.readline()
        if not line or line[3:4] == b' ': return line
reply()
for cmd in [b'EHLO slow.example', b'MAIL FROM:<billing@supplier.example>', ('RCPT TO:<%s>' % sys.argv[2]).encode(), b'DATA']:
    s.sendall(cmd + b'\\r\\n'); reply()
start = time.monotonic()
s.settimeout(0.25)
answer = b''
while not answer and time.monotonic() - start < 30:
    try:
        s.sendall(b'X-Trickle: %d\\r\\n' % int(time.monotonic() * 1000))
        answer = s.recv(4096)
    except socket.timeout: pass
    except OSError: break
s.settimeout(5)
try: closed = s.recv(4096) == b''
except OSError: closed = True
print(round(time.monotonic() - start, 1), 'closed' if closed else 'open', answer.decode().strip())
`,
      [String(port), a.live],
      40_000,
    );
    const [seconds, closed, ...reply] = slow.out.trim().split(' ');
    expect(reply.join(' ')).toMatch(/^451 4\.4\.2 Message not received within 4 s/);
    expect(closed).toBe('closed');
    expect(Number(seconds)).toBeGreaterThanOrEqual(3.9);
    expect(Number(seconds)).toBeLessThan(15);
    // nothing committed, so nothing staged: the sender keeps the message
    expect((await h.db.query<{ n: number }>('select count(*)::int as n from smtp_messages'))[0].n).toBe(before);
    expect(await h.db.query('select 1 from smtp_messages where rcpt_to @> array[$1]::text[]', [a.live.toLowerCase()])).toEqual([]);
    expect((await h.request('GET', '/v2/imports', { key: a.liveKey })).body.imports).toEqual([]);
  }, 60_000);

  it('more connections from one address than SMTP_MAX_CONNECTIONS_PER_IP: 421 for the one too many', async () => {
    const open: net.Socket[] = [];
    const greeting = (s: net.Socket) => new Promise<string>((resolve) => s.once('data', (d) => resolve(String(d))));
    // the open ones keep talking: SMTP_IDLE_TIMEOUT_MS is short in this file
    const keepAlive = setInterval(() => open.forEach((s) => s.write('NOOP\r\n')), 200);
    try {
      for (let i = 0; i < 4; i++) {
        const s = net.connect(port, '127.0.0.1');
        // kept (and kept talking) from its greeting on: a client that talks before it is refused
        expect(await greeting(s)).toMatch(/^220 /);
        open.push(s);
      }
      const refused = await swaks(port, { to: 'x@example.com', extra: ['--quit-after', 'EHLO'] });
      expect(refused.out).toMatch(/<\*\* 421 .*Too many connections from your address/);
    } finally {
      clearInterval(keepAlive);
      for (const s of open) s.destroy();
    }
  }, 30_000);

  it('the same message sent twice (a 250 the sender never read) is imported once; a sender over its hourly limit gets 450 at MAIL FROM', async () => {
    const a = await h.account();
    const inv = await h.invoice(a.liveKey);
    const from = `twice-${Date.now()}@supplier.example`;
    const messageId = `<twice-${Date.now()}@supplier.example>`;
    const file = await messageFile(a.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('twice') }], messageId, from);
    for (let i = 0; i < 2; i++) expect((await python(SMTPLIB_SEND, [String(port), from, a.live, file])).out.trim()).toBe('OK');
    const rows = await h.db.query<any>('select id from smtp_messages where mail_from = $1', [from]);
    expect(rows).toHaveLength(1);
    const { records } = await settledFor(messageId);
    expect(records.map((r) => r.status)).toEqual(['attached']);
    expect((await h.records(a.liveScope)).filter((r) => r.channel === 'mail')).toHaveLength(1);
    // the limit is 3 per hour: two sent, one more accepted, the next refused
    expect(
      (await python(SMTPLIB_SEND, [String(port), from, a.live, await messageFile(a.live, [], `<third-${Date.now()}@supplier.example>`, from)])).out.trim(),
    ).toBe('OK');
    const over = await python(SMTPLIB_SEND, [String(port), from, a.live, await messageFile(a.live, [], `<fourth-${Date.now()}@supplier.example>`, from)]);
    expect(over.out.trim()).toMatch(/^MAIL 450 4\.\d\.\d Too many messages from this sender/);
  }, 90_000);
});
