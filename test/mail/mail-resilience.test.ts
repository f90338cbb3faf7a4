// The poller under failure: connections cut mid-drain, a poller process killed, two pollers on
// one mailbox, a renumbered mailbox (UIDVALIDITY change). Every message must be handed over
// exactly once and end up moved. Dead and missing connections, a server without IDLE and
// hand-overs failing for one account are in mail-poller-connections.test.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { boxes, invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
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

/** n invoices, and one message per invoice (its PDF named after the number) in `box`. */
async function fill(box: string, n: number) {
  const invoices = [];
  for (let i = 0; i < n; i++) invoices.push(await h.invoice(acct.liveKey));
  for (const [i, inv] of invoices.entries()) {
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }], { messageId: `<${box}-${i}-${Date.now()}@test.example>` }),
      box,
    );
  }
  return invoices;
}

/** Every message moved to Done, each invoice with exactly one intake record, attached once. */
async function expectExactlyOnce(box: string, invoices: { id: string; invoiceNumber: string }[]) {
  await until(async () => (await h.dovecot.count(`${box}Done`)) === invoices.length && (await h.dovecot.count(box)) === 0, 90_000, `${box} to be drained`);
  const names = new Map(invoices.map((inv) => [`${inv.invoiceNumber}.pdf`, inv]));
  let records: Awaited<ReturnType<MailHarness['records']>> = [];
  await until(
    async () => {
      records = (await h.records(acct.liveScope)).filter((r) => names.has(r.filename));
      return records.length >= invoices.length && records.every((r) => r.status === 'attached');
    },
    90_000,
    `${box} records to be attached`,
  );
  const perName = new Map<string, number>();
  for (const r of records) perName.set(r.filename, (perName.get(r.filename) ?? 0) + 1);
  expect([...perName.values()].filter((n) => n !== 1)).toEqual([]);
  expect(perName.size).toBe(invoices.length);
  for (const r of records) expect(r.invoiceId).toBe(names.get(r.filename)!.id);
  const docs = await h.db.query<{ n: number }>('select count(*)::int as n from documents where invoice_id = any($1::text[]) and deleted_at is null', [
    invoices.map((i) => i.id),
  ]);
  expect(docs[0].n).toBe(invoices.length);
  // staged: moved by a poller that died before it could note the move, which is harmless
  const claims = await h.db.query<{ state: string }>('select state from mail_messages where mailbox = $1', [box]);
  expect(claims).toHaveLength(invoices.length);
  expect(claims.filter((c) => c.state === 'claimed')).toEqual([]);
}

describe('exactly once', () => {
  it('connection cut mid-drain, then the poller stopped mid-drain and a new one started', async () => {
    const box = 'Cut';
    const invoices = await fill(box, 60);
    const proxy = await startTcpProxy(h.dovecot.port);
    proxies.push(proxy);
    const first = h.startPoller({ imapUrl: h.urlVia(proxy.port, box), ...boxes(box), mailBatchSize: 5, mailConcurrency: 4 });
    let handed = 0;
    let stopping: Promise<void> | undefined;
    first.poller.on('message', () => {
      handed++;
      if (handed === 15) proxy.cut(); // in the middle of a batch, other hand-overs in flight
      if (handed === 35) stopping = first.stop(); // a restart, mid-drain
    });
    await until(() => stopping !== undefined, 90_000, 'the first poller to hand over 35 messages');
    await stopping;
    expect(first.poller.stats.connects).toBeGreaterThanOrEqual(2);
    expect(await h.dovecot.count(box)).toBeGreaterThan(0);
    h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box) });
    await expectExactlyOnce(box, invoices);
  }, 240_000);

  it('a poller process killed with SIGKILL mid-drain: another takes over its claims', async () => {
    const box = 'Kill';
    const invoices = await fill(box, 80);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-mail-kill-'));
    let out = '';
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role', 'mail'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        DATABASE_URL: h.dbUrl,
        REDIS_URL: h.config.redisUrl,
        REDIS_PREFIX: h.config.redisPrefix,
        IMAP_URL: h.dovecot.url(box),
        MAIL_PROCESSED_MAILBOX: `${box}Done`,
        MAIL_FAILED_MAILBOX: `${box}Failed`,
        MAIL_BATCH_SIZE: '5',
        MAIL_CLAIM_LEASE_MS: '2000',
        MAIL_IDLE_DELAY_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    try {
      await until(
        () => (out.match(/mail message received as imports/g) ?? []).length >= 10,
        60_000,
        `the poller process to hand over 10 messages:\n${out.slice(-2000)}`,
      );
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(await h.dovecot.count(box)).toBeGreaterThan(0);
    h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box) });
    await expectExactlyOnce(box, invoices);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 240_000);

  it('two pollers on one mailbox at once', async () => {
    const box = 'Twin';
    const invoices = await fill(box, 40);
    const a = h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box), mailBatchSize: 4 });
    const b = h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box), mailBatchSize: 4 });
    await expectExactlyOnce(box, invoices);
    expect(a.poller.stats.processed + b.poller.stats.processed).toBe(40);
  });
});

describe('copies', () => {
  it('two byte-identical copies of a message in the mailbox: handed over once, both moved', async () => {
    const box = 'Twice';
    const inv = await h.invoice(acct.liveKey);
    const raw = await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }], { messageId: '<twice@test.example>' }),
      box,
    );
    await h.dovecot.appendRaw(raw, box);
    const role = h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box) });
    await until(async () => (await h.dovecot.count(`${box}Done`)) === 2, 45_000, 'both copies to be moved');
    expect((await h.records(acct.liveScope)).filter((r) => r.filename === `${inv.invoiceNumber}.pdf`)).toHaveLength(1);
    expect(role.poller.stats.processed).toBe(1);
    await role.stop();
  });
});

describe('UIDVALIDITY', () => {
  it('a renumbered mailbox is rescanned: new mail is taken, mail handed over before is only moved', async () => {
    const box = 'Renumber';
    const [a, b] = [await h.invoice(acct.liveKey), await h.invoice(acct.liveKey)];
    const rawA = await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: `${a.invoiceNumber}.pdf`, content: pdf }], { messageId: '<renumber-a@test.example>' }),
      box,
    );
    const rawB = await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: `${b.invoiceNumber}.pdf`, content: pdf }], { messageId: '<renumber-b@test.example>' }),
      box,
    );
    let poller = h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box) });
    await until(async () => (await h.dovecot.count(`${box}Done`)) === 2, 45_000, 'A and B to be handed over');
    await poller.stop();
    const before = (
      await h.db.query<{ uidvalidity: number; last_uid: number }>('select uidvalidity, last_uid from mail_mailboxes where mailbox = $1', [box])
    )[0];
    expect(before.last_uid).toBe(2);

    // the server is restored from a backup: the mailbox is recreated, its UIDs start over, and
    // it holds A and B again (same bytes) besides a new message C that now has UID 1
    const c = await h.dovecot.client();
    // Dovecot derives UIDVALIDITY from the clock: within the same second it may hand out the old one
    await until(
      async () => {
        await c.mailboxDelete(box);
        await c.mailboxCreate(box);
        const status = await c.status(box, { uidValidity: true });
        return status !== false && Number(status.uidValidity) !== Number(before.uidvalidity);
      },
      5000,
      'the recreated mailbox to get a new UIDVALIDITY',
      200,
    );
    const inv = await h.invoice(acct.liveKey);
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }], { messageId: '<renumber-c@test.example>' }), box);
    await h.dovecot.appendRaw(rawA, box);
    await h.dovecot.appendRaw(rawB, box);
    expect(await h.dovecot.uids(box)).toEqual([1, 2, 3]);

    poller = h.startPoller({ imapUrl: h.dovecot.url(box), ...boxes(box) });
    await until(async () => (await h.dovecot.count(box)) === 0, 45_000, 'the renumbered mailbox to be drained');
    await poller.stop();
    const after = (
      await h.db.query<{ uidvalidity: number; last_uid: number }>('select uidvalidity, last_uid from mail_mailboxes where mailbox = $1', [box])
    )[0];
    expect(after.uidvalidity).not.toBe(before.uidvalidity);
    expect(after.last_uid).toBe(3);
    expect(h.logs.some((l) => l.includes('UIDVALIDITY changed'))).toBe(true);
    expect(await h.dovecot.count(`${box}Done`)).toBe(5);
    const records = await h.records(acct.liveScope);
    for (const x of [a, b, inv]) expect(records.filter((r) => r.filename === `${x.invoiceNumber}.pdf`)).toHaveLength(1);
    expect(poller.poller.stats.processed).toBe(1);
  });
});
