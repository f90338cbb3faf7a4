// The directory driver when its volume fails: made read-only (a real read-only mount) or gone
// (unmounted) mid-flow. Uploads get 503 with Retry-After and nothing is staged;
// a staged file whose bytes cannot be read is retried by its job, not failed, and attaches once
// when the volume is back. Nothing acknowledged is lost, nothing is attached twice.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryStore } from '../../src/storage/directory-store.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from '../intake/intake-harness.ts';

const mount = (...args: string[]) => execFileSync('mount', args, { stdio: 'pipe' });
const source = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-volume-'));
const volume = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-mounted-'));
let t: IntakeApp;

beforeAll(async () => {
  mount('--bind', source, volume); // the store's directory is a mount of its own, as a shared volume is
  t = await startIntakeApp({ config: { documentStore: 'directory', documentStoreDir: volume, intakeBackoffMs: 100, intakeBackoffMaxMs: 300 } });
});

afterAll(async () => {
  await t?.close();
  try {
    execFileSync('umount', [volume], { stdio: 'pipe' });
  } catch {
    // unmounted already
  }
  fs.rmSync(volume, { recursive: true, force: true });
  fs.rmSync(source, { recursive: true, force: true });
});

const post = (key: string, name: string, bytes: Buffer) =>
  t.request('POST', '/v2/imports', { key, body: { Filename: name, Content: bytes.toString('base64') } });
const imports = async (key: string) => (await t.request('GET', '/v2/imports?limit=250', { key })).body._embedded?.imports ?? [];

describe('the directory driver on a failing volume', () => {
  it("read-only: an upload is 503 with Retry-After and the spec's body, nothing staged; writable again, it is 202 and attaches", async () => {
    const { key, invoices } = await t.accountWith(['RO-1']);
    const pdf = await makePdf('read-only');
    mount('-o', 'remount,bind,ro', volume);
    let refused;
    try {
      refused = await post(key, 'RO-1.pdf', pdf);
    } finally {
      mount('-o', 'remount,bind,rw', volume);
    }
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.body).toMatchObject({ status: 503, title: 'Service Unavailable', detail: expect.stringMatching(/document store is not available/) });
    expect(await imports(key)).toEqual([]);

    const accepted = await post(key, 'RO-1.pdf', pdf);
    expect(accepted.status).toBe(202);
    expect(await t.waitFor(key, accepted.body.id)).toMatchObject({ status: 'attached', invoice: invoices['RO-1'] });
  });

  it('gone while a file waits: its job is tried again, not failed, and it attaches once when the volume is back', async () => {
    const { key } = await t.accountWith([]);
    const pdf = await makePdf('gone');
    const staged = await post(key, 'GONE-1.pdf', pdf);
    expect(staged.status).toBe(202);
    // read once by the worker (no invoice yet), then waits
    expect((await t.waitFor(key, staged.body.id, (r) => r.status === 'waiting')).status).toBe('waiting');
    execFileSync('umount', [volume]); // gone: its mount point is an empty directory, which is no store
    let customer;
    try {
      customer = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'C-1', name: 'Gone GmbH' } });
      const inv = await t.request('POST', '/v2/invoices', {
        key,
        body: { customer: customer.body.id, invoiceNumber: 'GONE-1', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' },
      });
      expect(inv.status).toBe(201);
      // woken by the new invoice, the job runs and fails on the store: it goes on being tried, the record is not failed
      await expect
        .poll(async () => (await t.svc.container.jobs.bullQueue('intake').getJob(staged.body.id))?.attemptsMade ?? 0, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(3);
      expect((await t.request('GET', `/v2/imports/${staged.body.id}`, { key })).body.status).toBe('waiting');
    } finally {
      mount('--bind', source, volume);
    }
    const attached = await t.waitFor(key, staged.body.id);
    expect(attached.status).toBe('attached');
    const docs = await t.db.query('select count(*)::int as n from documents where invoice_id = $1', [attached.invoice]);
    expect(docs[0].n).toBe(1);
    const content = await t.request('GET', `/v2/documents/${attached.invoice}/content`, { key });
    expect(Buffer.compare(content.raw, pdf)).toBe(0);
  });
});

describe('the directory driver when its fan-out directories go', () => {
  it('a put into a fan-out directory removed behind its back makes it again (the driver remembers the ones it made)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-fan-'));
    try {
      const store = await DirectoryStore.open(root);
      const bytes = await makePdf('fan-out');
      const first = await store.put(bytes, { maxBytes: bytes.length });
      fs.rmSync(path.join(root, first.sha256.slice(0, 2)), { recursive: true });
      expect(await store.has(first.sha256)).toBe(false);
      expect(await store.put(bytes, { maxBytes: bytes.length })).toEqual(first);
      expect((await store.get(first.sha256)).equals(bytes)).toBe(true);
      expect(fs.readdirSync(path.join(root, '.tmp'))).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the directory driver's temporary files", () => {
  const withRoot = (fn: (root: string) => Promise<void>) => async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-temp-'));
    try {
      await fn(root);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  };

  it(
    'a put writes into .tmp, made again when it was removed behind its back, and leaves nothing there',
    withRoot(async (root) => {
      const store = await DirectoryStore.open(root);
      const a = await makePdf('temp-a');
      await store.put(a, { maxBytes: a.length });
      expect(fs.readdirSync(path.join(root, '.tmp'))).toEqual([]);
      fs.rmSync(path.join(root, '.tmp'), { recursive: true });
      const b = await makePdf('temp-b');
      const put = await store.put(b, { maxBytes: b.length });
      expect((await store.get(put.sha256)).equals(b)).toBe(true);
      expect(fs.readdirSync(path.join(root, '.tmp'))).toEqual([]);
    }),
  );

  it(
    'a root that lost its marker (the mount point of a volume gone) is unavailable to a put, and nothing is written into it',
    withRoot(async (root) => {
      const store = await DirectoryStore.open(root);
      const bytes = await makePdf('no-marker');
      await store.put(bytes, { maxBytes: bytes.length }); // .tmp made
      // what the empty mount point looks like: no marker, no .tmp, no fan-out
      for (const name of fs.readdirSync(root)) fs.rmSync(path.join(root, name), { recursive: true });
      await expect(store.put(bytes, { maxBytes: bytes.length })).rejects.toMatchObject({ kind: 'unavailable' });
      expect(fs.readdirSync(root)).toEqual([]);
    }),
  );

  it(
    'removeLeftovers removes those in .tmp, and those an earlier version left in the root, once past their age',
    withRoot(async (root) => {
      const store = await DirectoryStore.open(root);
      const bytes = await makePdf('leftovers');
      const kept = await store.put(bytes, { maxBytes: bytes.length });
      fs.writeFileSync(path.join(root, '.tmp', 'cut-short'), 'half a file');
      fs.writeFileSync(path.join(root, '.tmp-0123abcd'), 'half a file');
      expect(await store.removeLeftovers(new Date(Date.now() - 3600_000))).toBe(0);
      expect(await store.removeLeftovers(new Date(Date.now() + 1000))).toBe(2);
      expect(fs.readdirSync(path.join(root, '.tmp'))).toEqual([]);
      expect(fs.readdirSync(root).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
      expect(await store.has(kept.sha256)).toBe(true);
    }),
  );
});
