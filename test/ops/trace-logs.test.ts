// One key follows a file through the logs: the HTTP request id (X-Request-Id) is the trace id of
// the import it starts; the intake id joins the receiving and the worker's lines.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Database } from '../../src/db/database.ts';
import { until } from '../../testkit/wait.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';
import { dropQueueKeys } from '../intake/intake-harness.ts';

const lines: Record<string, any>[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    cb();
  },
});
const config = testConfig({ roles: ['api', 'worker'] });
let db: Database;
let svc: RunningService;

beforeAll(async () => {
  db = await openTestDatabase();
  svc = await startService(config, createLogger('info', sink), { db });
});
afterAll(async () => {
  await svc?.stop();
  await dropQueueKeys(config);
  await db?.close();
});

describe('structured logs', () => {
  it('carry the request id as traceId from the upload to attached, and the intake id in between', async () => {
    const account = await svc.container.accounts.create('trace');
    const auth = { authorization: `Bearer ${account.liveKey}`, 'content-type': 'application/json' };
    const customer = await (
      await fetch(`${svc.apiUrl}/v2/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ customerCode: 'T-1', name: 'Trace' }) })
    ).json();
    const inv = await fetch(`${svc.apiUrl}/v2/invoices`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ customer: customer.id, invoiceNumber: 'TRACE-1', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '1.00' }),
    });
    expect(inv.status).toBe(201);

    const traceId = `trace-${Date.now()}`;
    const res = await fetch(`${svc.apiUrl}/v2/imports`, {
      method: 'POST',
      headers: { ...auth, 'x-request-id': traceId },
      body: JSON.stringify({ Filename: 'TRACE-1.pdf', Content: (await makePdf('TRACE-1')).toString('base64') }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-request-id')).toBe(traceId);
    const intakeId = (await res.json()).id as string;

    await until(() => lines.some((l) => l.msg === 'intake attached' && l.intakeId === intakeId), 30_000, 'the file to be attached');
    const traced = lines.filter((l) => l.traceId === traceId);
    const msgs = traced.map((l) => l.msg);
    expect(msgs).toEqual(expect.arrayContaining(['incoming request', 'intake received', 'request completed', 'intake attached']));
    expect(traced.find((l) => l.msg === 'intake received')).toMatchObject({ intakeId, channel: 'http' });
    expect(traced.find((l) => l.msg === 'intake attached')).toMatchObject({ intakeId, role: 'worker' });
    // and nothing secret on the way
    const text = JSON.stringify(lines);
    expect(text).not.toContain(account.liveKey);
  });
});
