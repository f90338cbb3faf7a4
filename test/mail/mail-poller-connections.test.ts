// The poller under failure, its connections and one account's errors: a silently dead
// connection, a server that is away, a server without IDLE, and hand-overs failing for one
// account. Every message must be handed over exactly once and end up moved (the drains cut,
// killed and raced are in mail-resilience.test.ts).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MailboxSession } from '../../src/channels/mail/imap-mailbox.ts';
import type { IntakeReceiver } from '../../src/intake/intake-port.ts';
import { startDovecot } from '../../testkit/dovecot.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { boxes, invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

let h: MailHarness;
let acct: MailAccount;
let pdf: Buffer;
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  h = await startMailHarness();
  acct = await h.account();
  pdf = await makePdf('resilience');
});
afterAll(async () => {
  for (const p of proxies) await p.close();
  await h?.close();
});

describe('connections', () => {
  it('notices a silently dead connection (watchdog NOOP) and reconnects', async () => {
    const box = 'Frozen';
    await h.dovecot.append({ from: 'x@y.example', to: 'nobody@example.com', subject: 'creates the mailbox', text: '.' }, box);
    const proxy = await startTcpProxy(h.dovecot.port);
    proxies.push(proxy);
    const role = h.startPoller({
      imapUrl: h.urlVia(proxy.port, box),
      ...boxes(box),
      mailWatchdogIntervalMs: 500,
      mailWatchdogTimeoutMs: 500,
      mailPollIntervalMs: 600_000,
    });
    const errors: string[] = [];
    role.poller.on('disconnected', (e: Error) => errors.push(e.message));
    await until(async () => (await h.dovecot.count(box)) === 0, 30_000, 'the first drain');
    // freeze the link once the drain is over and the session waits in IDLE
    await vi.waitFor(() => expect(role.poller.idling()).toBe(true), { timeout: 10_000 });
    proxy.freeze();
    const inv = await h.invoice(acct.liveKey);
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }]), box);
    // IDLE cannot report it over the frozen link, and the next poll is 10 minutes away
    await until(async () => (await h.dovecot.count(`${box}Done`)) === 1, 45_000, 'the message after the watchdog reconnected');
    expect(errors.some((e) => /NOOP got no answer/.test(e))).toBe(true);
    expect(role.poller.stats.connects).toBeGreaterThanOrEqual(2);
    await role.stop();
  });

  it('keeps trying with backoff while the server is away, and drains when it is back', async () => {
    const box = 'Away';
    const proxy = await startTcpProxy(h.dovecot.port);
    proxies.push(proxy);
    proxy.refuse(true);
    const inv = await h.invoice(acct.liveKey);
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }]), box);
    const role = h.startPoller({ imapUrl: h.urlVia(proxy.port, box), ...boxes(box), mailReconnectMinMs: 50, mailReconnectMaxMs: 400 });
    let failures = 0;
    role.poller.on('disconnected', () => failures++);
    await until(() => failures >= 4, 45_000, 'several failed connection attempts');
    expect(role.poller.stats.connects).toBe(0);
    proxy.refuse(false);
    await until(async () => (await h.dovecot.count(`${box}Done`)) === 1, 45_000, 'the drain after the server came back');
    expect(role.poller.stats.connects).toBe(1);
    await role.stop();
  });

  it('polls a server without IDLE', async () => {
    const plain = await startDovecot({ noIdle: true });
    try {
      const url = plain.url('INBOX');
      let idle: boolean | undefined;
      const role = h.startPoller({ imapUrl: url, mailPollIntervalMs: 300 });
      role.poller.on('connected', (s: MailboxSession) => (idle = s.idle));
      const inv = await h.invoice(acct.liveKey);
      await until(() => idle !== undefined, 30_000, 'the poller to connect');
      expect(idle).toBe(false);
      await plain.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }], { messageId: '<noidle@test.example>' }));
      await until(async () => (await plain.count('Processed')) === 1, 45_000, 'the polled message to be moved');
      expect(role.poller.stats.drains).toBeGreaterThan(1);
      await role.stop();
    } finally {
      await plain.stop();
    }
  });
});

describe('errors of one account', () => {
  it('never stop the poller: the other mail is handed over, the failing message stays and is retried', async () => {
    const box = 'Faulty';
    const bad = await h.account();
    const badInv = await h.invoice(bad.liveKey);
    const good = [await h.invoice(acct.liveKey), await h.invoice(acct.liveKey)];
    // the pipeline refuses this account's files twice (as when its staging fails), then takes them
    let refusals = 0;
    const real = h.svc.container.intake;
    const receiver: IntakeReceiver = {
      receive: (f) => (f.scope.accountId === bad.id && refusals++ < 2 ? Promise.reject(new Error('staging failed')) : real.receive(f)),
      recordFailure: (f, r) => real.recordFailure(f, r),
      recent: (s, n) => real.recent(s, n),
      takeUpload: (name, body, max) => real.takeUpload(name, body, max),
      receiveUpload: (f, u) => real.receiveUpload(f, u),
    };
    await h.dovecot.append(invoiceMail(bad.live, [{ filename: `${badInv.invoiceNumber}.pdf`, content: pdf }], { messageId: '<faulty-bad@test.example>' }), box);
    for (const inv of good) await h.dovecot.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }]), box);
    const role = h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box), mailPollIntervalMs: 300 }, { receiver });
    await until(async () => (await h.dovecot.count(`${box}Done`)) === 3, 45_000, 'all three messages, the failing one after its retries');
    expect(refusals).toBe(3);
    expect(role.poller.stats.errors).toBe(2);
    let claim: any;
    await until(
      async () => {
        claim = (await h.db.query('select attempts, last_error, state from mail_messages where header_message_id = $1', ['<faulty-bad@test.example>']))[0];
        return claim.state === 'moved';
      },
      30_000,
      'the claim to be noted as moved',
    );
    expect(claim).toMatchObject({ attempts: 3, last_error: 'staging failed' });
    expect((await h.records(bad.liveScope)).filter((r) => r.filename === `${badInv.invoiceNumber}.pdf`)).toHaveLength(1);
    await role.stop();
  });
});
