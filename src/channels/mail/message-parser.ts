// mailparser -> what the mail channel needs: header lookup, sender, subject, ids, and every
// part that could be a file, with its decoded name.
import { simpleParser, type ParsedMail } from 'mailparser';
import { headerFields } from './mime-names.ts';
import { addressesIn } from './recipient-routing.ts';
import type { MessagePart } from './pdf-parts.ts';

export interface ParsedMessage {
  /** every occurrence of a header's raw value, topmost first */
  header(name: string): string[];
  /** the From address, lower-cased ('' when missing) */
  from: string;
  subject?: string;
  messageId?: string;
  references: string[];
  parts: MessagePart[];
  /** the plain-text body (uuencoded files hide there) */
  text?: string;
}

const OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true } as const;

type ParamHeader = { value?: string; params?: Record<string, string> } | undefined;

function toParsed(mail: ParsedMail): ParsedMessage {
  const fields = headerFields(mail.headerLines.map((h) => h.line).join('\r\n'));
  const header = (name: string) => fields.get(name.toLowerCase()) ?? [];
  const refs = mail.references === undefined ? [] : Array.isArray(mail.references) ? mail.references : [mail.references];
  const parts: MessagePart[] = mail.attachments.map((a) => {
    // mailparser makes up names for unnamed parts; use only what the message really says
    const disposition = a.headers.get('content-disposition') as ParamHeader;
    const type = a.headers.get('content-type') as ParamHeader;
    return { filename: disposition?.params?.filename ?? type?.params?.name, contentType: a.contentType, content: a.content };
  });
  return {
    header,
    from: header('from').flatMap(addressesIn)[0] ?? '',
    subject: mail.subject,
    messageId: mail.messageId,
    references: refs,
    parts,
    text: mail.text,
  };
}

/** Parses a whole raw message. */
export async function parseMessage(source: Buffer): Promise<ParsedMessage> {
  return toParsed(await simpleParser(source, OPTIONS));
}

/** Parses an attached message or a MIME entity (the content of an S/MIME container): its parts and body text. */
export async function parseEntity(source: Buffer): Promise<{ parts: MessagePart[]; text?: string }> {
  const { parts, text } = await parseMessage(source);
  return { parts, text };
}
