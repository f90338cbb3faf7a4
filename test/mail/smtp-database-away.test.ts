// Without the database the SMTP receiver acknowledges nothing (issue 43): its connections to
// PostgreSQL go through a proxy the test cuts. RCPT TO is then 451 (the recipient cannot be
// checked), and a DATA whose commit fails is 451 too (Python's smtplib, paused between RCPT and
// DATA while the test cuts the database). Once the database is back the same message is accepted
// and imported once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { until } from '../../testkit/wait.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { testConfig } from '../helpers/test-app.ts';
import { dropQueueKeys } from '../intake/intake-harness.ts';
import { python, SMTPLIB_SEND } from './smtp-clients.ts';

let svc: RunningService;
let proxy: TcpProxy;
const cleanups: (() => Promise<unknown>)[] = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-smtp-db-'));
const config = testConfig({ roles: ['api', 'worker', 'smtp'] });

beforeAll(async () => {
  const pg = await createPgDatabase();
  const url = new URL(pg.url);
  proxy = await startTcpProxy(Number(url.port || 5432), url.hostname);
  url.port = String(proxy.port);
  const db = openPostgres(url.toString(), 5);
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  svc = await startService(config, createLogger('info', sink), { db });
  cleanups.push(
    () => pg.drop(),
    () => proxy.close(),
    () => db.close(),
    () => dropQueueKeys(config),
    () => svc.stop(),
  );
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  fs.rmSync(tmp, { recursive: true, force: true });
});

const away = () => {
  proxy.refuse(true);
  proxy.cut();
};

describe('SMTP receiver without its database', () => {
  it('451 at RCPT and after DATA while the database is away; the retry once it is back is imported once', async () => {
    const api = httpClient(svc.apiUrl!);
    const account = (await api('POST', '/admin/accounts', { key: config.adminToken, body: { name: 'db-away' } })).body;
    const customer = (await api('POST', '/v2/customers', { key: account.liveKey, body: { customerCode: 'C-1', name: 'Away BV' } })).body;
    const invoice = (
      await api('POST', '/v2/invoices', {
        key: account.liveKey,
        body: { customer: customer.id, invoiceNumber: 'AWAY-1', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
      })
    ).body;
    const to = account.importAddresses.live;
    const raw = await new MailComposer({
      from: 'billing@supplier.example',
      to,
      subject: 'Invoice',
      text: 'Attached.',
      messageId: '<away-1@supplier.example>',
      attachments: [{ filename: 'AWAY-1.pdf', content: await makePdf('away') }],
    })
      .compile()
      .build();
    const file = path.join(tmp, 'away.eml');
    fs.writeFileSync(file, raw);
    const port = String(svc.smtpPort);

    away();
    expect((await python(SMTPLIB_SEND, [port, 'billing@supplier.example', to, file])).out.trim()).toMatch(
      /^RCPT 451 4\.3\.0 Temporary failure checking the recipient/,
    );
    proxy.refuse(false);

    // RCPT accepted, then the database goes while the client waits to send DATA
    const client = spawn(
      '/usr/bin/python3',
      [
        '-c',
        `
import smtplib, sys
s = smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=30)
s.ehlo()
s.mail(sys.argv[2])
print('RCPT', *s.rcpt(sys.argv[3]), flush=True)
sys.stdin.readline()
code, text = s.data(open(sys.argv[4], 'rb').read())
print('DATA', code, text.decode(), flush=True)
s.quit()
`,
        port,
        'billing@supplier.example',
        to,
        file,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    client.stdout!.on('data', (d) => (out += d));
    client.stderr!.on('data', (d) => (out += d));
    await until(() => out.includes('RCPT'), 20_000, 'smtplib past RCPT');
    expect(out).toMatch(/^RCPT 250 /);
    away();
    client.stdin!.end('\n');
    await until(() => out.includes('DATA') || client.exitCode !== null, 30_000, 'smtplib past DATA');
    expect(out).toMatch(/DATA 451 4\.3\.0 Temporary failure storing the message/);
    proxy.refuse(false);

    // the sender's retry, with the database back
    expect((await python(SMTPLIB_SEND, [port, 'billing@supplier.example', to, file])).out.trim()).toBe('OK');
    let imports: { filename: string; status: string; invoice: string | null }[] = [];
    await until(
      async () => {
        imports = (await api('GET', '/v2/imports', { key: account.liveKey })).body.imports;
        return imports.length > 0 && imports.every((r) => r.status === 'attached' || r.status === 'failed');
      },
      60_000,
      'the import to settle',
    );
    expect(imports.map((r) => [r.filename, r.status, r.invoice])).toEqual([['AWAY-1.pdf', 'attached', invoice.id]]);
  }, 120_000);
});
