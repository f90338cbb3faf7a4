// ZIP archives made the way people make them: Info-ZIP's `zip` command (Debian package `zip`),
// run as a process on files written to a temporary folder.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { makePdf } from '../../testkit/pdf.ts';

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
    child.child.stdin!.end(files.map((f) => f.name).join('\n') + '\n');
    await child;
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `count` distinct small PDFs named `<prefix><i>.pdf`, the invoice numbers `<prefix><i>`. */
export async function pdfsNamed(prefix: string, count: number): Promise<ZipFile[]> {
  const base = await makePdf('zip');
  return Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}.pdf`, bytes: Buffer.concat([base, Buffer.from(`\n% file ${i}\n`)]) }));
}
