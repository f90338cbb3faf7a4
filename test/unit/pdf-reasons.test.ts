// The PDF check's failures as reasons a person can act on (issue 42): each kind of failure has its
// code and its words in English, Dutch and German, says what to do, and no library's message
// (pdf-lib's "_this.catalog.Pages(...).traverse is not a function") ever reaches a person.
import { afterAll, describe, expect, it } from 'vitest';
import { intakeReason, type IntakeReason } from '../../src/domain/intake-reasons.ts';
import { checkPdf } from '../../src/formats/pdf.ts';
import { formatter, translator } from '../../src/http/dashboard/i18n/i18n.ts';
import { reasonWords } from '../../src/http/dashboard/reason-words.ts';
import { createPdfCheckPool } from '../../src/intake/pdf-check-pool.ts';
import { encryptedPdf } from '../helpers/einvoice.ts';
import { makePdf, pdfWithBrokenPageTree } from '../helpers/fixtures.ts';

const pool = createPdfCheckPool(1);
afterAll(() => pool.close());

/** what a library says, never a person's words */
const LIBRARY = /traverse|_this|is not a function|undefined|TypeError|Error:|Expected|Invalid object ref|PDFDict|catalog|stack|\bat \w+ \(/i;
const words = (r: IntakeReason) => ({
  en: r.text,
  nl: reasonWords(translator('nl'), formatter('nl-NL', 'UTC'), { reason: r.text, reasonCode: r.code, reasonParams: r.params }),
  de: reasonWords(translator('de'), formatter('de-DE', 'UTC'), { reason: r.text, reasonCode: r.code, reasonParams: r.params }),
});

const CASES: [what: string, bytes: () => Promise<Buffer>, code: string, en: string, nl: RegExp, de: RegExp][] = [
  [
    'a broken page tree (issue 42)',
    async () => pdfWithBrokenPageTree(),
    'pdf_damaged',
    'The PDF cannot be read: it is damaged or incomplete; save or export it again from the program that made it and send the new file',
    /^De pdf is niet te lezen: de pdf is beschadigd/,
    /^Das PDF lässt sich nicht lesen: es ist beschädigt/,
  ],
  [
    'a truncated PDF',
    async () => (await makePdf('cut')).subarray(0, 400),
    'pdf_damaged',
    'The PDF cannot be read: it is damaged or incomplete; save or export it again from the program that made it and send the new file',
    /beschadigd/,
    /beschädigt/,
  ],
  [
    'garbage after %PDF-',
    async () => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 0x42)]),
    'pdf_damaged',
    'The PDF cannot be read: it is damaged or incomplete; save or export it again from the program that made it and send the new file',
    /beschadigd/,
    /beschädigt/,
  ],
  [
    'encrypted without a known password',
    async () => encryptedPdf(await makePdf('locked'), 'user-secret'),
    'pdf_encrypted',
    'The PDF is protected with a password, so it cannot be checked or shown; send it without a password',
    /zonder wachtwoord$/,
    /ohne Passwort$/,
  ],
  [
    'not a PDF',
    async () => Buffer.from('Dear customer, here is your invoice.'),
    'file_not_pdf',
    'The file is not a PDF (no %PDF- header); send the invoice as a PDF file',
    /als pdf-bestand$/,
    /als PDF-Datei$/,
  ],
  ['empty', async () => Buffer.alloc(0), 'file_empty', 'The file is empty; send it again', /stuur het opnieuw$/, /senden Sie sie erneut$/],
  [
    'too large',
    async () => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5 * 1024 * 1024)]),
    'file_too_large',
    'The file is larger than 5242880 bytes; send a smaller PDF (scanned at a lower resolution, or compressed)',
    /^Het bestand is groter dan/,
    /^Die Datei ist größer als/,
  ],
];

describe("the PDF check's failures, in words", () => {
  it.each(CASES)('%s: %s, in the domain check and in the check thread alike', async (_what, make, code, en, nl, de) => {
    const bytes = await make();
    for (const verdict of [await checkPdf(bytes), await pool.check(bytes)]) {
      expect(verdict.ok).toBe(false);
      if (verdict.ok) return;
      expect(verdict.reason.code).toBe(code);
      const w = words(verdict.reason);
      expect(w.en).toBe(en);
      expect(w.nl).toMatch(nl);
      expect(w.de).toMatch(de);
      for (const text of Object.values(w)) expect(text).not.toMatch(LIBRARY);
    }
  });

  it("a thread that dies on a file and the reasons of older rows say what to do, without the thread's or the library's words", () => {
    for (const r of [
      intakeReason('pdf_too_complex'),
      intakeReason('pdf_check_timeout', { seconds: 30 }),
      intakeReason('pdf_no_pages'),
      intakeReason('zip_unreadable'),
      intakeReason('gave_up', { attempts: 3 }),
    ]) {
      for (const text of Object.values(words(r))) {
        expect(text).not.toMatch(LIBRARY);
        expect(text, r.code).toMatch(/; (send|stuur|senden|retry|probeer|versuchen|pack|pak|packen)/i);
      }
    }
    // a stored row of an older version kept pdf-lib's message as a parameter: the dashboard's words drop it
    const old = {
      reason: 'The PDF cannot be read: _this.catalog.Pages(...).traverse is not a function',
      reasonCode: 'pdf_unreadable' as const,
      reasonParams: { error: '_this.catalog.Pages(...).traverse is not a function' },
    };
    expect(reasonWords(translator('en'), formatter('en-GB', 'UTC'), old)).toBe(
      'The PDF cannot be read: it is damaged or incomplete; save or export it again from the program that made it and send the new file',
    );
  });
});
