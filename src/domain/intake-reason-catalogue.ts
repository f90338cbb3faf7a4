// The catalogue of the reasons an import record gives (intake-reasons.ts makes their texts): each
// code's English template and the kinds of its parameters. Pure.
import type { MatchedBy } from './intake.ts';

/** How a parameter is written: in English for the API, through Intl for the dashboard. */
export type ReasonParamKind = 'text' | 'number' | 'bytes' | 'date' | 'list' | 'amount' | 'evidence' | 'awaited';
export interface Amount {
  cents: number;
  /** ISO 4217; absent: the invoice's own total, in the account's currency */
  currency?: string;
}
export interface ParamValues {
  text: string;
  number: number;
  bytes: number;
  /** an ISO timestamp */
  date: string;
  /** alternatives, written "a, b or c" */
  list: string[];
  amount: Amount;
  evidence: MatchedBy;
  /** what a file waits for: its name, then the numbers its e-invoice says that name no invoice */
  awaited: { name: string; einvoiceNumbers: string[] };
}
/** An English template, or one per plural form chosen by the `count` parameter (i18next's `_one`/`_other`). */
type Template = string | { one: string; other: string };
export interface ReasonSpec {
  en: Template;
  params?: Record<string, ReasonParamKind>;
}

const CMS = 'a signature container (CMS/PKCS#7, .p7m)';
const RENAME = 'rename the file or assign it';
const TOTALS = "the invoice's total is {{total}}: correct the invoice's total or send the matching file";
const DAMAGED = 'it is damaged or incomplete; save or export it again from the program that made it and send the new file';

export const INTAKE_REASONS = {
  file_empty: { en: 'The file is empty; send it again' },
  file_tnef: { en: 'The file is an Outlook TNEF container (winmail.dat), not a PDF; send the PDF itself' },
  file_cms_unreadable: { en: `The file is ${CMS} that cannot be opened: {{error}}`, params: { error: 'text' } },
  file_cms_no_pdf: { en: `The file is ${CMS} that holds no PDF` },
  file_not_pdf: { en: 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' },
  file_too_large: { en: 'The file is larger than {{max}}; send a smaller PDF (scanned at a lower resolution, or compressed)', params: { max: 'bytes' } },
  // The PDF check's failures, in words a person can act on; a library's message never reaches them (it is logged).
  pdf_damaged: { en: `The PDF cannot be read: ${DAMAGED}` },
  /** rows of older versions (their parameter held pdf-lib's message, no longer shown) */
  pdf_unreadable: { en: `The PDF cannot be read: ${DAMAGED}` },
  pdf_encrypted: { en: 'The PDF is protected with a password, so it cannot be checked or shown; send it without a password' },
  pdf_no_pages: { en: 'The PDF has no pages; send the whole invoice' },
  pdf_check_timeout: {
    en: 'The PDF could not be checked within {{seconds}} s; send it again, or a smaller or simpler PDF of the invoice',
    params: { seconds: 'number' },
  },
  pdf_too_complex: {
    en: 'The PDF could not be checked: it needs more memory than a check may use; send a smaller or simpler PDF of the invoice (print it to PDF again)',
  },
  /** rows of older versions (their parameter held the thread's exit), no longer made */
  pdf_check_failed: {
    en: 'The PDF could not be checked: it needs more memory than a check may use; send a smaller or simpler PDF of the invoice (print it to PDF again)',
  },
  name_path_parts: { en: 'The file name {{name}} has path parts; send a plain name like <invoice_number>.pdf', params: { name: 'text' } },
  name_control_characters: { en: 'The file name {{name}} contains control characters', params: { name: 'text' } },
  name_no_invoice: { en: 'The file name {{name}} has no invoice id or number before .pdf', params: { name: 'text' } },
  xml_unreadable: { en: 'The XML file cannot be read: {{problem}}; export it again from the program that made it', params: { problem: 'text' } },
  xml_not_einvoice: {
    en: 'The XML file is not an e-invoice (its root element is {{root}}); send a UBL or CII (XRechnung, Factur-X) invoice or credit note',
    params: { root: 'text' },
  },
  xml_not_invoice: { en: 'The XML file is {{what}}, not an invoice', params: { what: 'text' } },
  xml_no_number: { en: 'The XML e-invoice has no invoice number (BT-1)' },
  account_disabled: { en: 'The account is disabled: files sent to it are not processed' },
  staged_missing: { en: 'The staged file is no longer available' },
  waiting: { en: 'Waiting for an invoice with id or number {{awaits}} until {{until}}', params: { awaits: 'awaited', until: 'date' } },
  no_invoice: { en: 'No invoice with id or number {{awaits}}', params: { awaits: 'awaited' } },
  invoice_deleted: { en: 'The invoice {{invoice}} was deleted', params: { invoice: 'text' } },
  waiting_device: {
    en: "Waiting until {{until}} for an invoice that the PDF names: its file name {{name}} is a scanner's or camera's name, not an invoice number",
    params: { name: 'text', until: 'date' },
  },
  no_invoice_device: {
    en: "The file name {{name}} is a scanner's or camera's name, not an invoice number, and the PDF names no invoice of this account; rename the file to the invoice's number or assign it",
    params: { name: 'text' },
  },
  device_name_nothing_inside: {
    en: "The file name {{name}} is a scanner's or camera's name, not an invoice number, and nothing in the PDF names an invoice (no e-invoice, no invoice number in its text); rename the file to the invoice's number or assign it",
    params: { name: 'text' },
  },
  pdf_text_names_several: {
    en: "The PDF's text names several invoices ({{numbers}}), so it cannot say which one it is; rename the file to the invoice's number or assign it",
    params: { numbers: 'list' },
  },
  document_replaced: {
    en: "No longer the invoice's document: {{filename}} replaced it as invoice {{number}}'s document, found {{by}}, which ranks at least as high as this file's evidence",
    params: { filename: 'text', number: 'text', by: 'evidence' },
  },
  document_kept: {
    en: 'Invoice {{number}} already has {{filename}}, attached {{keptBy}}; this file was found {{by}}, which does not replace it: send it as {{number}}.pdf or assign it to replace the document',
    params: { number: 'text', filename: 'text', keptBy: 'evidence', by: 'evidence' },
  },
  assigned: { en: 'Assigned by hand to invoice {{number}}', params: { number: 'text' } },
  matched: { en: 'Matched {{by}} ({{number}})', params: { by: 'evidence', number: 'text' } },
  same_file: { en: 'The invoice already had this exact file; nothing changed' },
  from_signed_verified: { en: `The PDF was taken out of ${CMS}; its signature was verified` },
  from_signed_unverified: { en: `The PDF was taken out of ${CMS}; its signature was not verified, only unwrapped` },
  from_junk_dropped: { en: "The {{skipped}} bytes before the PDF's %PDF- header were dropped", params: { skipped: 'number' } },
  from_einvoice_xml: { en: 'Rendered as a PDF from the e-invoice XML, which is embedded in it as {{name}} and kept as the original', params: { name: 'text' } },
  gave_up: {
    en: 'Gave up after {{attempts}} attempts: the service could not process the file (an error on our side, logged for the operators); retry it or send it again',
    params: { attempts: 'number' },
  },
  name_and_einvoices_name_several: { en: `The file's name and its e-invoices name different invoices, {{numbers}}; ${RENAME}`, params: { numbers: 'list' } },
  could_be_either: { en: 'The file could be invoice {{numbers}}; rename it or assign it', params: { numbers: 'list' } },
  name_and_einvoice_differ: { en: `The file's name says {{number}}, but its e-invoice says {{other}}; ${RENAME}`, params: { number: 'text', other: 'text' } },
  einvoice_and_name_differ: { en: `The file's e-invoice says {{number}}, but its name says {{other}}; ${RENAME}`, params: { number: 'text', other: 'text' } },
  name_and_unknown_einvoice: {
    en: `The file's name says {{number}}, but its e-invoice says {{numbers}}, which is no invoice of this account; ${RENAME}`,
    params: { number: 'text', numbers: 'list' },
  },
  einvoices_disagree: {
    en: `The file's e-invoice also says {{number}}, but its e-invoice says {{numbers}}, which is no invoice of this account; ${RENAME}`,
    params: { number: 'text', numbers: 'list' },
  },
  name_and_subject_differ: {
    en: `The file's name says {{number}}, but the e-mail's subject says {{numbers}}; ${RENAME}`,
    params: { number: 'text', numbers: 'list' },
  },
  subject_names_several: { en: "The e-mail's subject names {{numbers}}; rename the file to the invoice's number or assign it", params: { numbers: 'list' } },
  reply_subject_names_several: {
    en: "The reply's subject names {{numbers}}; rename the file to the invoice's number or assign it",
    params: { numbers: 'list' },
  },
  einvoice_total_differs: {
    en: `The e-invoice says invoice {{number}} with a total of {{grand}}; ${TOTALS}`,
    params: { number: 'text', grand: 'amount', total: 'amount' },
  },
  einvoice_totals_differ: {
    en: `The e-invoice says invoice {{number}} with a total of {{grand}}, amount due {{due}}; ${TOTALS}`,
    params: { number: 'text', grand: 'amount', due: 'amount', total: 'amount' },
  },
  einvoice_credit_note_sign: {
    en: "The e-invoice is credit note {{number}} of {{grand}}, but the invoice's total is {{total}}; a credit note is an invoice with a negative total: set the invoice's total to {{grand}}, or send the file of invoice {{number}}",
    params: { number: 'text', grand: 'amount', total: 'amount' },
  },
  einvoice_sign_differs: {
    en: "The e-invoice says invoice {{number}} with a total of {{grand}}, but the invoice's total is {{total}}: the signs differ; if the file is a credit note, set the invoice's total to {{grand}}, else send the file of invoice {{number}}",
    params: { number: 'text', grand: 'amount', total: 'amount' },
  },
  einvoice_due_differs: {
    en: `The e-invoice says invoice {{number}} with an amount due of {{due}}; ${TOTALS}`,
    params: { number: 'text', due: 'amount', total: 'amount' },
  },
  note_subject_many_files: {
    en: "the e-mail's subject names {{numbers}}, but the message carried {{files}} files, so its subject cannot say which one is the invoice",
    params: { numbers: 'list', files: 'number' },
  },
  note_reply_subject_many_files: {
    en: "the reply's subject names {{numbers}}, but the message carried {{files}} files, so its subject cannot say which one is the invoice",
    params: { numbers: 'list', files: 'number' },
  },
  note_subject_evidence_first: { en: "the e-mail's subject names {{numbers}}, but the file's own evidence comes first", params: { numbers: 'list' } },
  note_reply_subject_evidence_first: { en: "the reply's subject names {{numbers}}, but the file's own evidence comes first", params: { numbers: 'list' } },
  note_overruled_name: { en: 'Matched {{by}}; overruled: its name {{name}}, which names no invoice', params: { by: 'evidence', name: 'text' } },
  note_overruled_subject: { en: "Matched {{by}}; overruled: the e-mail's subject, which names {{numbers}}", params: { by: 'evidence', numbers: 'list' } },
  note_overruled_reply_subject: { en: "Matched {{by}}; overruled: the reply's subject, which names {{numbers}}", params: { by: 'evidence', numbers: 'list' } },
  note_overruled_name_subject: {
    en: "Matched {{by}}; overruled: its name {{name}}, which names no invoice; the e-mail's subject, which names {{numbers}}",
    params: { by: 'evidence', name: 'text', numbers: 'list' },
  },
  note_overruled_name_reply_subject: {
    en: "Matched {{by}}; overruled: its name {{name}}, which names no invoice; the reply's subject, which names {{numbers}}",
    params: { by: 'evidence', name: 'text', numbers: 'list' },
  },
  note_credit_note_corrects: {
    en: 'the e-invoice is credit note {{number}}, which corrects invoice {{corrects}}: it attaches only to an invoice numbered {{number}} (with a negative total), never to the invoice it corrects',
    params: { number: 'text', corrects: 'list' },
  },
  note_einvoice_unread: { en: 'an e-invoice XML was found but its number could not be read' },
  note_pdf_no_text: { en: 'the PDF has no text to read (a scan?), so only its name could say which invoice it is' },
  note_pdf_text_several: { en: "the PDF's text names invoices {{numbers}}", params: { numbers: 'list' } },
  note_pdf_text_unknown: { en: "the PDF's text says invoice {{numbers}}, which is no invoice of this account", params: { numbers: 'list' } },
  note_einvoice_names_unknown: { en: 'its e-invoice says {{numbers}}, which is no invoice of this account yet', params: { numbers: 'list' } },
  note_pdf_text_also_unknown: {
    en: "the PDF's text says invoice {{number}}, but also {{numbers}}, which is no invoice of this account (yet): the file may be that one",
    params: { number: 'text', numbers: 'list' },
  },
  note_pdf_text_no_total: { en: "the PDF's text says invoice {{number}}, but not its total {{total}}", params: { number: 'text', total: 'amount' } },
  zip_too_large: { en: 'The ZIP archive is larger than {{max}}', params: { max: 'bytes' } },
  zip_unreadable: { en: 'The ZIP archive cannot be read: it is damaged or no ZIP archive; pack the files again and send the new archive' },
  zip_no_files: { en: 'The ZIP archive has no files' },
  zip_empty: { en: 'The ZIP archive is empty' },
  zip_too_many_entries: { en: 'The ZIP archive has {{count}} entries; at most {{max}} are accepted', params: { count: 'number', max: 'number' } },
  zip_unpacks_too_large: { en: 'The ZIP archive unpacks to {{total}}; at most {{max}} are accepted', params: { total: 'bytes', max: 'number' } },
  zip_entry_unreadable: {
    en: '{{name}} in the ZIP archive cannot be read: it is damaged; pack the files again and send the new archive',
    params: { name: 'text' },
  },
  zip_entry_bomb: {
    en: '{{name}} in the ZIP archive is compressed {{ratio}} to 1 (above {{max}} to 1): refused as a possible zip bomb',
    params: { name: 'text', ratio: 'number', max: 'number' },
  },
  zip_entry_encrypted: { en: '{{name}} in the ZIP archive is encrypted; send it without a password', params: { name: 'text' } },
  zip_entry_nested: { en: '{{name}} is an archive inside the ZIP archive; nested archives are not unpacked', params: { name: 'text' } },
  zip_entry_too_large: { en: '{{name}} in the ZIP archive is larger than {{max}} ({{size}})', params: { name: 'text', max: 'bytes', size: 'bytes' } },
  unpacked: { en: { one: 'Unpacked into {{count}} file', other: 'Unpacked into {{count}} files' }, params: { count: 'number' } },
  unpacked_some_refused: {
    en: { one: 'Unpacked into {{count}} file, {{refused}} of them refused', other: 'Unpacked into {{count}} files, {{refused}} of them refused' },
    params: { count: 'number', refused: 'number' },
  },
  attachment_not_pdf: { en: 'The attachment {{filename}} is not a PDF', params: { filename: 'text' } },
  attachment_too_large: { en: 'The attachment is larger than {{max}} ({{size}} encoded) and was not downloaded', params: { max: 'bytes', size: 'bytes' } },
  attachment_nested_deep: { en: '{{name}} is nested more than {{depth}} levels deep and was not opened', params: { name: 'text', depth: 'number' } },
  attachment_damaged: { en: '{{name}} could not be read ({{error}})', params: { name: 'text', error: 'text' } },
  attachment_unopenable: { en: '{{name}} could not be opened: {{error}}', params: { name: 'text', error: 'text' } },
  no_pdf_attached: { en: 'No PDF attached' },
  held_sender_not_listed: {
    en: '{{sender}} is not on the list of senders who may send files; an owner can release it (and add the sender) or discard it',
    params: { sender: 'text' },
  },
  held_sender_not_authenticated: {
    en: '{{sender}} is on the list of senders, but nothing shows the mail came from it (no DMARC, SPF or DKIM pass for its domain); an owner can release it or discard it',
    params: { sender: 'text' },
  },
  archive_not_read: { en: '{{kind}} archives are not read: send the PDFs or a ZIP', params: { kind: 'text' } },
} as const satisfies Record<string, ReasonSpec>;
