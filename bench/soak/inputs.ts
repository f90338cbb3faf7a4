// bench:soak's inputs: the real files of ../shared/corpora (read at run time, none committed):
// hybrid e-invoice PDFs, PDFs without an e-invoice, standalone XML e-invoices (rendered by the
// service), and mail messages in real programs' layouts. A missing corpus is an error, not a skip.
import fs from 'node:fs';
import path from 'node:path';

const CORPORA = path.resolve(import.meta.dirname, '../../../shared/corpora');

export interface SoakInputs {
  /** files for FTPS, SFTP and HTTP: name and bytes */
  files: { name: string; bytes: Buffer }[];
  /** raw messages for SMTP, addressed to `to` once replaced */
  messages: string[];
  /** e-invoice numbers (BT-1) of the corpus, to create invoices for */
  numbers: string[];
}

const read = (dir: string, ext: RegExp) => {
  const full = path.join(CORPORA, dir);
  if (!fs.existsSync(full)) throw new Error(`bench:soak needs ${full} (see ../shared/corpora/README.md)`);
  return fs
    .readdirSync(full)
    .filter((f) => ext.test(f))
    .sort()
    .map((f) => ({ name: f, bytes: fs.readFileSync(path.join(full, f)) }));
};

const column = (file: string, name: string) => {
  const [head, ...rows] = fs
    .readFileSync(path.join(CORPORA, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const at = head.indexOf(name);
  return rows.map((r) => r[at]).filter(Boolean);
};

export function soakInputs(importAddress: string): SoakInputs {
  const files = [
    ...read('pdf-matching/einv', /\.pdf$/i),
    ...read('pdf-matching/other', /\.pdf$/i),
    ...read('einvoice-derived', /\.pdf$/i),
    ...read('einvoice-xml', /\.xml$/i),
  ];
  const messages = read('mail-messages/eml', /\.eml$/i).map((m) =>
    m.bytes.toString('latin1').replaceAll('importer+uuu30vr1a4kv@localhost', importAddress).replaceAll('importer@localhost', importAddress),
  );
  const numbers = [...new Set([...column('pdf-matching/einv/totals.tsv', 'bt1'), ...column('einvoice-xml/manifest.tsv', 'bt1')])];
  if (!files.length || !messages.length) throw new Error(`bench:soak found no inputs in ${CORPORA}`);
  return { files, messages, numbers };
}
