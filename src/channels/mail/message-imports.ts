// What one message hands to the intake pipeline, in order: each file the walker found (at any
// depth), each PDF too large to download, each part that says PDF and is none, or, when there is
// nothing at all, one failure that says why ("No PDF attached", "winmail.dat held no PDF").
// Each item has a stable slot, so a resumed claim knows what it handed over already. Pure.
import { intakeReason, plainReason, type IntakeReason } from '../../domain/intake-reasons.ts';
import type { Scope } from '../../domain/scope.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import type { IncomingFile } from '../../intake/intake-port.ts';
import type { MessageContent } from './mail-intake-types.ts';
import type { ParsedMessage } from './message-parser.ts';
import { parseEntity } from './message-parser.ts';
import { walkMessage, type FoundFile } from './message-walker.ts';

export type NumberedFile = FoundFile & { index: number; filename: string };

interface PlanItem {
  slot: string;
  filename: string;
  sha256: string | null;
  /** where the file came from inside the message, and its signature (null: a top-level part) */
  origin: string | null;
  /** a file for IntakeReceiver.receive() */
  file?: NumberedFile;
  /** else a failed record with this reason */
  reason?: IntakeReason;
}

export interface MessageImports {
  items: PlanItem[];
  files: NumberedFile[];
  /** how many files the message carried (its PDFs and those too large to download): the subject is evidence only for a message's only file */
  messageFiles: number;
  /** the message's outcome and its reason */
  outcome: 'processed' | 'failed';
  reason: string | null;
  /** nothing was found at all (no file, no problem): automatic mail is then ignored, not failed */
  nothing: boolean;
}

/** Where a file came from: "winmail.dat", "Invoice.eml › smime.p7m (signature verified)"; null: a part of the message itself. */
function originOf(f: FoundFile): string | null {
  const signature = f.signature && `signature ${f.signature === 'verified' ? 'verified' : 'not verified: only unwrapped'}`;
  if (!f.via.length) return signature ?? null;
  return signature ? `${f.via.join(' › ')} (${signature})` : f.via.join(' › ');
}

export async function planImports(parsed: ParsedMessage, content: MessageContent, sha256: (b: Buffer) => string): Promise<MessageImports> {
  const walked = await walkMessage(content.kind === 'whole' ? parsed.parts : content.parts, content.kind === 'whole' ? parsed.text : content.text, parseEntity);
  const files = walked.files.map((f, index) => ({ ...f, index, filename: f.filename ?? `attachment-${index + 1}.${f.kind}` }));
  const skipped = content.kind === 'parts' ? content.skipped : [];
  const problems = [
    ...(content.kind === 'parts' ? content.notPdf.map((filename) => ({ filename, reason: intakeReason('attachment_not_pdf', { filename }) })) : []),
    ...walked.problems,
  ];
  const items: PlanItem[] = files.map((f) => ({ slot: `pdf:${f.index}`, filename: f.filename, sha256: sha256(f.bytes), origin: originOf(f), file: f }));
  for (const [i, tooLarge] of skipped.entries()) {
    const reason = intakeReason('attachment_too_large', { max: tooLarge.maxBytes, size: tooLarge.size });
    items.push({ slot: `large:${i}`, filename: tooLarge.filename, sha256: null, origin: null, reason });
  }
  for (const [i, { filename, reason }] of problems.entries()) items.push({ slot: `notpdf:${i}`, filename, sha256: null, origin: null, reason });
  const nothing = !items.length;
  // nothing at all: a container that held no PDF is named ("winmail.dat held no PDF")
  const noFileReason = walked.empty.length ? plainReason(walked.empty.join('; ')) : intakeReason('no_pdf_attached');
  if (nothing) items.push({ slot: 'none', filename: parsed.subject?.trim().slice(0, 200) || '(no subject)', sha256: null, origin: null, reason: noFileReason });
  const reason = files.length ? null : skipped.length ? 'Every PDF attachment is too large' : (problems[0]?.reason ?? noFileReason).text;
  return { items, files, messageFiles: files.length + skipped.length, outcome: files.length ? 'processed' : 'failed', reason, nothing };
}

/**
 * What the pipeline gets for one file found in a message: the one place a mail file becomes an
 * IncomingFile. Its origin (container, signature) is noted in mail_message_files and logged.
 */
export function incomingFile(
  file: NumberedFile,
  m: { scope: Scope; sender: string; traceId: string; subject?: string; messageFiles: number; senderVerdict?: SenderVerdict; hold?: IntakeReason },
): IncomingFile {
  return {
    scope: m.scope,
    channel: 'mail',
    sender: m.sender,
    filename: file.filename,
    bytes: file.bytes,
    traceId: m.traceId,
    subject: m.subject,
    messageFiles: m.messageFiles,
    senderVerdict: m.senderVerdict,
    hold: m.hold,
    // a message our SMTP receiver took (the verdict is its own): the receiving process may run the
    // file's intake step itself, without a job (intake/local-runs.ts)
    ...(m.senderVerdict?.source === 'smtp' ? { inProcess: true } : {}),
  };
}
