// ZIP archives made the way people make them: Info-ZIP's `zip` command (Debian package `zip`),
// run as a process on files written to a temporary folder.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Scope } from '../../src/domain/scope.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { pollFor } from '../../testkit/wait.ts';
import { settled } from './imports.ts';

const run = promisify(execFile);

export interface ZipFile {
  /** the path inside the archive (folders are made as needed) */
  name: string;
  bytes: Buffer;
}

/** `zip -X` of these files; `password` encrypts every entry (`zip -P`, traditional ZIP encryption). */
export async function makeZip(files: ZipFile[], opts: { password?: string } = {}): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-zip-'));
  try {
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, 'in', f.name)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'in', f.name), f.bytes);
    }
    const out = path.join(dir, 'out.zip');
    const args = ['-q', '-X', ...(opts.password ? ['-P', opts.password] : []), out, '-@'];
    const child = run('zip', args, { cwd: path.join(dir, 'in'), maxBuffer: 1 << 20 });
    child.child.stdin!.end(`${files.map((f) => f.name).join('\n')}\n`);
    await child;
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A 7z archive of these files (p7zip's `7z a`, Debian package `p7zip-full`). */
export async function make7z(files: ZipFile[]): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-7z-'));
  try {
    for (const f of files) fs.writeFileSync(path.join(dir, f.name), f.bytes);
    await run('7z', ['a', '-bd', '-y', path.join(dir, 'out.7z'), ...files.map((f) => f.name)], { cwd: dir, maxBuffer: 1 << 20 });
    return fs.readFileSync(path.join(dir, 'out.7z'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `count` distinct PDFs (of about `padTo` bytes) named `<prefix><i>.pdf`, the invoice numbers `<prefix><i>`. */
export async function pdfsNamed(prefix: string, count: number, padTo = 0): Promise<ZipFile[]> {
  const base = await makePdf('zip', padTo);
  return Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}.pdf`, bytes: Buffer.concat([base, Buffer.from(`\n% file ${i}\n`)]) }));
}

type Container = {
  customers: { create(scope: Scope, b: object, idem: boolean): Promise<{ customer: { id: string } }> };
  invoices: { create(scope: Scope, b: object): Promise<{ id: string; invoiceNumber: string }> };
};

/** Invoices numbered `<prefix><i>` for i < count, made through the services. */
export async function invoicesNumbered(c: Container, scope: Scope, prefix: string, count: number): Promise<{ id: string; invoiceNumber: string }[]> {
  const { customer } = await c.customers.create(scope, { customerCode: `C-${prefix}`, name: 'Zip BV' }, false);
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push(
      await c.invoices.create(scope, {
        customer: customer.id,
        invoiceNumber: `${prefix}${i}`,
        invoiceDate: '01-02-2026',
        invoiceDuedate: '01-03-2026',
        invoiceTotal: '1.00',
      }),
    );
  }
  return out;
}

type Get = (method: string, url: string, opts: { key: string }) => Promise<{ status: number; body: any }>;

/** The imports (GET /v2/imports) unpacked from this archive's import, once `done` holds for all `count` of them. */
export async function archiveImports(
  request: Get,
  key: string,
  archiveId: string,
  count: number,
  done: (r: any) => boolean = settled,
  ms = 60_000,
): Promise<any[]> {
  const files = await pollFor(
    async () => ((await request('GET', '/v2/imports?limit=250', { key })).body.imports as any[]).filter((r) => r.archive === archiveId),
    (f) => f.length === count && f.every(done),
    { ms },
  );
  return files.reverse();
}
