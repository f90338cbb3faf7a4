// The text of the answer to a sender whose file could not be attached. Pure.

export interface FileProblem {
  filename: string;
  reason: string;
}

export interface ReplyInput {
  from: string;
  to: string;
  originalSubject?: string;
  originalMessageId?: string;
  originalReferences?: string[];
  problems: FileProblem[];
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
  const subject = input.originalSubject?.trim() ? `Re: ${input.originalSubject.trim().replace(/^(re:\s*)+/i, '')}` : 'Your invoice e-mail could not be processed';
  const lines = [
    'Hello,',
    '',
    input.problems.length === 1 ? 'A file in your e-mail could not be attached to an invoice:' : 'Files in your e-mail could not be attached to an invoice:',
    '',
    ...input.problems.map((p) => `- ${p.filename}: ${p.reason}`),
    '',
    'Name each PDF after its invoice number or invoice id (for example INV-2026-001.pdf) and send it again.',
    '',
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
