// The text of the answer to a sender whose file could not be attached: each file with its reason,
// then the advice that applies to those reasons (and no other). A sender who is not listed learns
// nothing about the account's invoices: a reason that would say a total or whether a number
// exists is replaced by one that does not. Pure.
import type { ReasonCode } from '../../domain/intake-reasons.ts';

export interface FileProblem {
  filename: string;
  reason: string;
  /** the reason's code (domain/intake-reasons.ts); absent: worded outside the catalogue (the mail parser's) */
  code?: ReasonCode | null;
}

/** Reasons about the file itself, which say nothing about the account's invoices. */
const FILE_ONLY =
  /^(file_|pdf_|zip_|attachment_|xml_unreadable$|xml_not_|xml_no_number$|name_path_parts$|name_control_characters$|no_pdf_attached$|archive_not_read$|unpacked)/;
const NO_FACTS = 'It could not be matched to an invoice';

/** The reason a sender may read: a listed one every reason, others only those about the file. */
export function shownReason(p: FileProblem, facts: boolean): string {
  if (facts || !p.code || FILE_ONLY.test(p.code)) return p.reason;
  return NO_FACTS;
}

const ADVICE: [RegExp, string][] = [
  [
    /^(file_too_large|attachment_too_large|zip_too_large|zip_entry_too_large|zip_unpacks_too_large)$/,
    'Send files of at most 5 MB each: split them over several e-mails, or scan at a lower resolution.',
  ],
  [/^archive_not_read$/, 'Send the PDF files themselves, or pack them in a ZIP archive.'],
  [/^(pdf_encrypted|zip_entry_encrypted)$/, 'Send the PDF without a password.'],
  [
    /^(file_empty|file_not_pdf|file_tnef|attachment_not_pdf|pdf_unreadable|pdf_no_pages|no_pdf_attached|file_cms_no_pdf|file_cms_unreadable|xml_not_einvoice|xml_not_invoice)$/,
    'Attach each invoice as a PDF file (or its e-invoice XML) and send it again.',
  ],
  [
    /^(einvoice_total_differs|einvoice_totals_differ|einvoice_due_differs)$/,
    "Send the file whose totals match the invoice, or ask us to correct the invoice's total first.",
  ],
  [
    /^(name_no_invoice|no_invoice|waiting|could_be_either|name_and_|einvoice_and_name_differ|einvoices_disagree|subject_names_several|reply_subject_names_several|document_kept|xml_no_number|gave_up)/,
    'Name each PDF after its invoice number or invoice id (for example INV-2026-001.pdf) and send it again.',
  ],
];

/** The advice that applies to these problems, each once, in the order of ADVICE; a reason without code gets none. */
export function adviceFor(problems: FileProblem[], facts: boolean): string[] {
  const codes = problems.map((p) => (shownReason(p, facts) === NO_FACTS ? 'no_invoice' : p.code)).filter((c): c is ReasonCode => Boolean(c));
  return ADVICE.filter(([re]) => codes.some((c) => re.test(c))).map(([, text]) => text);
}

export interface ReplyInput {
  from: string;
  to: string;
  originalSubject?: string;
  originalMessageId?: string;
  originalReferences?: string[];
  problems: FileProblem[];
  /** the sender is listed: the reasons may say invoice facts */
  facts?: boolean;
}

export interface ReplyMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  inReplyTo?: string;
  references?: string[];
  headers: Record<string, string>;
}

export function composeReply(input: ReplyInput): ReplyMessage {
  const subject = input.originalSubject?.trim()
    ? `Re: ${input.originalSubject.trim().replace(/^(re:\s*)+/i, '')}`
    : 'Your invoice e-mail could not be processed';
  const lines = [
    'Hello,',
    '',
    input.problems.length === 1 ? 'A file in your e-mail could not be attached to an invoice:' : 'Files in your e-mail could not be attached to an invoice:',
    '',
    ...input.problems.map((p) => `- ${p.filename}: ${shownReason(p, input.facts === true)}`),
    '',
    ...adviceFor(input.problems, input.facts === true).flatMap((line) => [line, '']),
    'This is an automatic message; replies to it are not read.',
  ];
  const references = [...(input.originalReferences ?? []), ...(input.originalMessageId ? [input.originalMessageId] : [])];
  return {
    from: input.from,
    to: input.to,
    subject,
    text: lines.join('\n'),
    inReplyTo: input.originalMessageId,
    references: references.length ? references : undefined,
    // RFC 3834: mark it, so other responders do not answer it in turn
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All', Precedence: 'auto_reply' },
  };
}
