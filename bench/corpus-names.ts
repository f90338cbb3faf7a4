// The names the matching corpus (bench/matching-corpus.ts) sends its files under: real meaningless
// names or counters, exact names of other invoices, and the short numbers its accounts also hold.
import fs from 'node:fs';
import type { CorpusFile } from './corpus-expected.ts';

/** Short numbers real accounting systems use, and numbers that names of the issue point at. */
export const DISTRACTORS = ['2024', '0815', '000123', '0001', '0123', 'INV-000123', 'RE/2024/0816'];

/** The names of file-names.tsv that are no evidence for any invoice of the account, as PDFs. */
export function meaninglessNames(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'))
    .filter(([, , meaningless]) => meaningless === 'yes')
    .map(([name]) => (/\.pdf$/i.test(name) ? name : `${name.replace(/\.[^.]+$/, '')}.pdf`));
}

/** Names for the i-th file once the real ones are used up: scanner and camera counters, dates, words. */
export function counterName(i: number): string {
  const n = i + 1;
  const pad = (v: number, w: number) => String(v).padStart(w, '0');
  const day = new Date(Date.UTC(2024, 10, 1 + (n % 28)));
  const date = day.toISOString().slice(0, 10);
  const words = ['Rechnung', 'Beleg', 'Dokument', 'facture', 'invoice', 'Scan', 'Kopie', 'signed'];
  switch (n % 6) {
    case 0:
      return `scan_${pad(n, 4)}.pdf`;
    case 1:
      return `IMG_${pad(n, 4)}.pdf`;
    case 2:
      return `DSC${pad(n, 5)}.pdf`;
    case 3:
      return `Scan ${date} ${pad(8 + (n % 10), 2)}.${pad(n % 60, 2)}.pdf`;
    case 4:
      return `${date}.pdf`;
    default:
      return `${words[n % words.length]} ${words[(n * 3 + 1) % words.length]}.pdf`;
  }
}

/** A name the FTP server can store as one file: the number, or the invoice id when the number has a slash. */
/** An XML e-invoice of the corpus keeps its kind of name: `<name>.xml` (FTP takes no other name for it). */
export const asFile = (file: CorpusFile, name: string) => (/\.xml$/i.test(file.file) ? name.replace(/\.pdf$/i, '.xml') : name);
export const exactName = (number: string, id: string) => (/[/\\]/.test(number) || number.startsWith('.') ? `${id}.pdf` : `${number}.pdf`);
