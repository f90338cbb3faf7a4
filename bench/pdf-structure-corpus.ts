// The quick structure check against real PDFs: every PDF under --corpus (a folder of public
// sample collections, kept outside the repository: docs/matching.md) is read by the structure
// check (src/formats/pdf-structure.ts) and by the full parse (pdf-reader.ts in this thread). Prints
// how many the structure decides alone and how long it takes; exits 1 when it decides a file
// differently from the full parse (another page count, a refusal, or an e-invoice it would skip).
//
//   npm run corpus:structure -- --corpus DIR
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkPdf } from '../src/formats/pdf.ts';
import { readStructure } from '../src/formats/pdf-structure.ts';

const { values } = parseArgs({ options: { corpus: { type: 'string' } } });
if (!values.corpus) throw new Error('--corpus DIR is required');
const files = fs
  .readdirSync(values.corpus, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.pdf$/i.test(f))
  .map((f) => path.join(values.corpus!, f));
const pdfs = files.map((f) => ({ f, bytes: fs.readFileSync(f) })).filter((p) => p.bytes.subarray(0, 5).toString('latin1') === '%PDF-');

let alone = 0,
  full = 0,
  einvoices = 0,
  structureUs = 0,
  fullUs = 0;
const wrong: string[] = [];
for (const { f, bytes } of pdfs) {
  const t0 = performance.now();
  const structure = readStructure(bytes);
  const t1 = performance.now();
  const verdict = await checkPdf(bytes);
  structureUs += (t1 - t0) * 1000;
  fullUs += (performance.now() - t1) * 1000;
  if (verdict.ok && verdict.einvoices.length > 0) einvoices++;
  if (!structure || structure.mayHoldXml) full++;
  else {
    alone++;
    if (!verdict.ok || verdict.pages !== structure.pages || verdict.einvoices.length > 0)
      wrong.push(`${f}: structure ${JSON.stringify(structure)}, full parse ${JSON.stringify(verdict).slice(0, 160)}`);
  }
}
console.log(
  `${pdfs.length} PDFs (${einvoices} with an e-invoice): the structure decides ${alone} alone, ${full} go to the full parse; ` +
    `structure ${(structureUs / pdfs.length).toFixed(0)} µs a file, full parse ${(fullUs / pdfs.length / 1000).toFixed(1)} ms a file; decided otherwise than the full parse: ${wrong.length}`,
);
for (const w of wrong) console.log(`  ${w}`);
process.exitCode = wrong.length ? 1 : 0;
