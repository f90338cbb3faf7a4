// The promise of 250, judged by a real relay (issue 43): Postfix delivers to the SMTP receiver
// of the real service (a process), which is SIGKILLed while a large message's DATA is under way,
// then started again. Postfix keeps what was not acknowledged and retries; in the end its queue
// is empty, and every message's PDF is imported exactly once: 0 lost, 0 duplicated.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { freePort } from '../../testkit/ports.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { until } from '../../testkit/wait.ts';
import { startPostfixRelay, type PostfixRelay } from './postfix-relay.ts';
import { python } from './smtp-clients.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

const SMALL = 8;

describe('SMTP receiver behind Postfix', () => {
  it('killed mid-DATA and restarted: Postfix retries what was not acknowledged; each PDF imported once', async () => {
    const pg = await createPgDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-smtp-crash-'));
    const smtpPort = await freePort();
    const adminToken = `adm_${randomToken(24)}`;
    const env = {
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `iitest${randomToken(8)}`,
      ADMIN_TOKEN: adminToken,
      SMTP_LISTEN: `127.0.0.1:${smtpPort}`,
      MAIL_MAX_MESSAGE_BYTES: String(64 * 1024 * 1024),
      LOG_LEVEL: 'debug',
      RECONCILE_INTERVAL_MS: '2000',
    };
    let svc: ServiceProcess = spawnService(['api', 'worker', 'smtp'], env);
    cleanups.push(
      async () => (svc.signal('SIGKILL'), await svc.exited),
      () => pg.drop(),
      async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    );
    let api = httpClient(await svc.url());
    await svc.waitForLog((l) => l.msg === 'smtp listening');
    const account = (await api('POST', '/admin/accounts', { key: adminToken, body: { name: 'relay' } })).body;
    const customer = (await api('POST', '/v2/customers', { key: account.liveKey, body: { customerCode: 'C-1', name: 'Relay BV' } })).body;
    const numbers = Array.from({ length: SMALL + 1 }, (_, i) => `R-${i}`);
    for (const invoiceNumber of numbers) {
      const res = await api('POST', '/v2/invoices', {
        key: account.liveKey,
        body: { customer: customer.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
      });
      expect(res.status).toBe(201);
    }
    const relay: PostfixRelay = await startPostfixRelay(smtpPort);
    cleanups.push(() => relay.stop());

    // the large message first (about 24 MB with its filler), then the small ones, all into Postfix
    const files: string[] = [];
    for (const [i, invoiceNumber] of numbers.entries()) {
      const attachments = [{ filename: `${invoiceNumber}.pdf`, content: await makePdf(invoiceNumber) }];
      if (i === SMALL) attachments.push({ filename: 'scan.bin', content: randomBytes(18 * 1024 * 1024) });
      const raw = await new MailComposer({
        from: `sender-${i}@supplier.example`,
        to: account.importAddresses.live,
        subject: invoiceNumber,
        text: 'Invoice attached.',
        attachments,
      })
        .compile()
        .build();
      const file = path.join(dataDir, `${i}.eml`);
      fs.writeFileSync(file, raw);
      files.push(file);
    }
    const order = [SMALL, ...numbers.keys()].slice(0, numbers.length);
    const submit = await python(
      `
import smtplib, sys
port, rcpt, pairs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
with smtplib.SMTP('127.0.0.1', port, timeout=60) as s:
    for sender, path in zip(pairs[0::2], pairs[1::2]):
        s.sendmail(sender, [rcpt], open(path, 'rb').read())
print('OK')
`,
      [String(relay.port), account.importAddresses.live, ...order.flatMap((i) => [`sender-${i}@supplier.example`, files[i]])],
      120_000,
    );
    expect(submit.out.trim()).toBe('OK');

    // the large message's DATA has begun at the receiver: kill the service there
    const big = `sender-${SMALL}@supplier.example`;
    await svc.waitForLog((l) => l.msg === 'smtp data started' && l.mailFrom === big, 60_000);
    svc.signal('SIGKILL');
    await svc.exited;
    // nothing acknowledged for it: Postfix still holds it, the database has no trace of it
    expect(await relay.queue()).toContain(big);
    const db = openPostgres(pg.url, 2);
    cleanups.push(() => db.close());
    expect(await db.query('select id from smtp_messages where mail_from = $1', [big])).toEqual([]);

    svc = spawnService(['api', 'worker', 'smtp'], env);
    api = httpClient(await svc.url());
    await svc.waitForLog((l) => l.msg === 'smtp listening', 180_000);
    await relay.flush();
    await until(async () => (await relay.queue()).includes('Mail queue is empty'), 120_000, 'Postfix to deliver everything', 250);

    // every message committed once, every PDF imported and attached once
    const rows = await db.query<{ mail_from: string; n: number }>(
      'select mail_from, count(*)::int as n from smtp_messages group by mail_from order by mail_from',
    );
    expect(rows).toEqual(numbers.map((_, i) => ({ mail_from: `sender-${i}@supplier.example`, n: 1 })).sort((a, b) => a.mail_from.localeCompare(b.mail_from)));
    let imports: { filename: string; status: string }[] = [];
    await until(
      async () => {
        imports = (await api('GET', '/v2/imports?limit=250', { key: account.liveKey })).body.imports;
        return imports.length >= numbers.length && imports.every((r) => r.status === 'attached' || r.status === 'failed');
      },
      120_000,
      'every import settled',
    );
    expect(imports.map((r) => [r.filename, r.status]).sort()).toEqual(numbers.map((n) => [`${n}.pdf`, 'attached']));
  }, 600_000);
});
