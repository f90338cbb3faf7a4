// mailparser -> what the mail channel needs: header lookup, sender, subject, ids, and every
// part that could be a file, with its decoded name.
import { simpleParser, type ParsedMail } from 'mailparser';
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
}

const OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true } as const;

type ParamHeader = { value?: string; params?: Record<string, string> } | undefined;

function toParsed(mail: ParsedMail): ParsedMessage {
  const lines = new Map<string, string[]>();
  for (const { key, line } of mail.headerLines) {
    const colon = line.indexOf(':');
    const value = line.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, '').trim();
    const list = lines.get(key.toLowerCase()) ?? [];
    list.push(value);
    lines.set(key.toLowerCase(), list);
  }
  const header = (name: string) => lines.get(name.toLowerCase()) ?? [];
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
  };
}

/** Parses a whole raw message. */
export async function parseMessage(source: Buffer): Promise<ParsedMessage> {
  return toParsed(await simpleParser(source, OPTIONS));
}
