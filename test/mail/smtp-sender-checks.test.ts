// Who sent it, for mail received by SMTP (issue 43 part 2): DKIM signatures made by a signer that
// is not ours (python3-dkim's dknewkey and dkimsign), SPF and DMARC records served by dnsmasq on
// loopback (DNS_SERVERS), messages sent by Python's smtplib. Pass, fail and a forged From each
// end with the verdict expected, stored with the raw message and handed to the pipeline.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../../testkit/pdf.ts';
import { until } from '../../testkit/wait.ts';
import { startDnsServer, type DnsServer } from './dns-server.ts';
import { startMailHarness, type MailAccount, type MailHarness } from './mail-harness.ts';
import { python, SMTPLIB_SEND } from './smtp-clients.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-dkim-'));
let dns: DnsServer;
let h: MailHarness;
let account: MailAccount;
let key: string;
let sink: SmtpSink;

beforeAll(async () => {
  execFileSync('dknewkey', ['sel'], { cwd: tmp, stdio: 'pipe' });
  key = path.join(tmp, 'sel.key');
  const dkim = fs.readFileSync(path.join(tmp, 'sel.dns'), 'utf8').replace(/\s+/g, ' ').trim();
  dns = await startDnsServer({
    // signer.example: sends from 127.0.0.1, signs, and asks receivers to reject what fails
    'signer.example': 'v=spf1 ip4:127.0.0.1 -all',
    'sel._domainkey.signer.example': dkim,
    '_dmarc.signer.example': 'v=DMARC1; p=reject',
    // fail.example: never sends from 127.0.0.1
    'fail.example': 'v=spf1 ip4:192.0.2.1 -all',
    'sel._domainkey.fail.example': dkim,
    '_dmarc.fail.example': 'v=DMARC1; p=reject',
    // bank.example: sends no mail from here at all and says so
    'bank.example': 'v=spf1 -all',
    '_dmarc.bank.example': 'v=DMARC1; p=reject',
  });
  // SMTP only (no mailbox): the smtp role sends the replies through SMTP_URL, a receiver of the test's
  sink = await startSmtpSink();
  h = await startMailHarness({
    config: {
      roles: ['api', 'worker', 'smtp'],
      dnsServers: [{ host: '127.0.0.1', port: dns.port }],
      smtpHostname: 'mx.invoice-intake.test',
      smtpUrl: sink.url,
    },
  });
  account = await h.account();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await dns?.stop();
  await sink?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A message signed by dkimsign (it prints the message with its signature) for `domain`, selector sel; `tamper` changes its body after signing. */
async function signed(from: string, domain: string, messageId: string, tamper = false): Promise<string> {
  const inv = await h.invoice(account.liveKey);
  const raw = await new MailComposer({
    from,
    to: account.live,
    subject: 'Invoice',
    text: 'Attached.',
    messageId,
    attachments: [{ filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('signed') }],
  })
    .compile()
    .build();
  let out = await new Promise<Buffer>((resolve, reject) => {
    const p = execFile('dkimsign', ['sel', domain, key], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
    p.stdin!.end(raw);
  });
  if (tamper) out = Buffer.from(out.toString('latin1').replace('Attached.', 'Pay to another account.'), 'latin1');
  const file = path.join(tmp, `${messageId.replace(/\W/g, '')}.eml`);
  fs.writeFileSync(file, out);
  return file;
}

async function send(mailFrom: string, file: string, messageId: string) {
  expect((await python(SMTPLIB_SEND, [String(h.svc.smtpPort), mailFrom, account.live, file])).out.trim()).toBe('OK');
  const { row } = await h.settledRecords(messageId, 60_000);
  const [stored] = await h.db.query<any>("select verdict from smtp_messages where verdict->>'from' = $1 order by received_at desc limit 1", [
    row.sender_verdict.from,
  ]);
  // what was stored with the raw message is what the pipeline got
  expect(row.sender_verdict).toEqual(stored.verdict);
  return stored.verdict;
}

describe('SMTP sender checks (mailauth, real DNS, a foreign DKIM signer)', () => {
  it('pass: SPF for the client address, a valid DKIM signature and DMARC aligned: authenticated', async () => {
    const messageId = `<pass-${Date.now()}@signer.example>`;
    const verdict = await send('billing@signer.example', await signed('Billing <billing@signer.example>', 'signer.example', messageId), messageId);
    expect(verdict).toEqual({
      source: 'smtp',
      from: 'billing@signer.example',
      spf: 'pass',
      spfDomain: 'signer.example',
      dkimPassDomains: ['signer.example'],
      dmarc: 'pass',
      arc: 'none',
      authenticated: true,
    });
  }, 90_000);

  it('fail: SPF fails for the client address, the body was changed after signing, DMARC fails: not authenticated', async () => {
    const messageId = `<fail-${Date.now()}@fail.example>`;
    const verdict = await send('billing@fail.example', await signed('billing@fail.example', 'fail.example', messageId, true), messageId);
    expect(verdict).toMatchObject({
      source: 'smtp',
      from: 'billing@fail.example',
      spf: 'fail',
      spfDomain: 'fail.example',
      dkimPassDomains: [],
      dmarc: 'fail',
      authenticated: false,
    });
  }, 90_000);

  it("forged From: the envelope and signature are signer.example's (both pass), From says bank.example: DMARC fails, not authenticated", async () => {
    const messageId = `<forged-${Date.now()}@signer.example>`;
    const verdict = await send('bounce@signer.example', await signed('CEO <ceo@bank.example>', 'signer.example', messageId), messageId);
    expect(verdict).toEqual({
      source: 'smtp',
      from: 'ceo@bank.example',
      spf: 'pass',
      spfDomain: 'signer.example',
      dkimPassDomains: ['signer.example'],
      dmarc: 'fail',
      arc: 'none',
      authenticated: false,
    });
  }, 90_000);

  it('SMTP only: the smtp role answers an authenticated sender whose message had no PDF (the reply goes out through SMTP_URL)', async () => {
    const messageId = `<nopdf-${Date.now()}@signer.example>`;
    const raw = await new MailComposer({ from: 'billing@signer.example', to: account.live, subject: 'Our invoice', text: 'Forgot the file.', messageId })
      .compile()
      .build();
    const signedRaw = execFileSync('dkimsign', ['sel', 'signer.example', key], { input: raw, maxBuffer: 16 * 1024 * 1024 });
    const file = path.join(tmp, 'nopdf.eml');
    fs.writeFileSync(file, signedRaw);
    expect((await python(SMTPLIB_SEND, [String(h.svc.smtpPort), 'billing@signer.example', account.live, file])).out.trim()).toBe('OK');
    await until(() => sink.to('billing@signer.example').some((m) => m.parsed.inReplyTo === messageId), 60_000, 'the reply');
  }, 90_000);
});
