// A small reader of TNEF (Outlook's winmail.dat, application/ms-tnef): only what finding the
// attached files needs. The format, after [MS-OXTNEF] (Transport Neutral Encapsulation Format):
//
//   stream     = signature u32 (0x223E9F78) legacyKey u16 attribute*
//   attribute  = level u8 (1 message, 2 attachment) id u32 (low 16 bits: name, high: type)
//                length u32 data[length] checksum u16 (sum of the data bytes mod 65536)
//   attAttachRendData (0x00069002) opens a new attachment; the attachment's attributes follow:
//   attAttachTitle (0x00018010, a NUL-ended 8.3 name in the OEM code page), attAttachData
//   (0x0006800F, the bytes) and attAttachment (0x00069005, a MAPI property list).
//   MAPI property list = count u32 property*; property = type u16 id u16
//                [id >= 0x8000: guid[16] kind u32 (0: lid u32 | 1: len u32 utf16[len] pad4)]
//                value; multi-valued types (0x1000 bit) and the variable ones (string8 0x1E,
//                unicode 0x1F, binary 0x102, object 0x0D) carry count u32, then per value
//                length u32 bytes pad4; fixed ones are 4, 8 or 16 bytes (2-byte values padded).
//   PidTagAttachLongFilename (0x3707) is the real name (attAttachTitle is often 8.3, "INVOIC~1.PDF");
//   PidTagAttachDataBinary (0x3701) may hold the bytes instead of attAttachData; as an object
//   (0x000D) it starts with a 16-byte IID and may be an embedded message: a TNEF stream itself.
//
// Checksums are not enforced (writers get them wrong; the PDF check downstream decides).
// Pure and bounded: a damaged stream yields what was read before the damage, and says so.
import { decodeCharset } from './mime-names.ts';

interface TnefAttachment {
  /** the long file name when the stream has one, else the 8.3 title, else the display name */
  filename?: string;
  bytes: Uint8Array;
}

export interface TnefContent {
  attachments: TnefAttachment[];
  /** set when the stream ended in damage (what was read before it is kept) */
  damaged?: string;
}

const TNEF_SIGNATURE = 0x223e9f78;

const LVL_ATTACHMENT = 2;
const ATT_ATTACH_REND_DATA = 0x00069002;
const ATT_ATTACH_TITLE = 0x00018010;
const ATT_ATTACH_DATA = 0x0006800f;
const ATT_ATTACHMENT = 0x00069005;
const ATT_OEM_CODEPAGE = 0x00069007;

const PR_ATTACH_LONG_FILENAME = 0x3707;
const PR_ATTACH_FILENAME = 0x3704;
const PR_DISPLAY_NAME = 0x3001;
const PR_ATTACH_DATA = 0x3701;

const PT_STRING8 = 0x1e;
const PT_UNICODE = 0x1f;
const PT_BINARY = 0x102;
const PT_OBJECT = 0x0d;
const FIXED_SIZE: Record<number, number> = { 1: 4, 2: 4, 3: 4, 4: 4, 5: 8, 6: 8, 7: 8, 10: 4, 11: 4, 20: 8, 64: 8, 72: 16 };
const MAX_DEPTH = 4;

/** Whether the bytes start with the TNEF signature. */
export const isTnef = (b: Uint8Array) => b.length >= 6 && Buffer.from(b.buffer, b.byteOffset, 4).readUInt32LE(0) === TNEF_SIGNATURE;

interface Draft {
  title?: string;
  long?: string;
  short?: string;
  display?: string;
  data?: Uint8Array;
  mapiData?: Uint8Array;
  embedded?: Uint8Array;
}

export function readTnef(input: Uint8Array, depth = 0): TnefContent {
  const buf = Buffer.from(input.buffer, input.byteOffset, input.length);
  if (!isTnef(buf)) return { attachments: [], damaged: 'no TNEF signature' };
  const drafts: Draft[] = [];
  let codepage = 'windows-1252';
  let damaged: string | undefined;
  let at = 6;
  while (at < buf.length) {
    if (at + 9 > buf.length) {
      damaged = `truncated attribute header at byte ${at}`;
      break;
    }
    const level = buf[at];
    const id = buf.readUInt32LE(at + 1);
    const length = buf.readUInt32LE(at + 5);
    const start = at + 9;
    if (start + length > buf.length) {
      damaged = `attribute 0x${id.toString(16)} runs past the end`;
      break;
    }
    const data = buf.subarray(start, start + length);
    at = start + length + 2;
    if (id === ATT_OEM_CODEPAGE && length >= 4) codepage = `windows-${data.readUInt32LE(0)}`;
    if (id === ATT_ATTACH_REND_DATA) drafts.push({});
    if (level !== LVL_ATTACHMENT || !drafts.length) continue;
    const draft = drafts[drafts.length - 1];
    if (id === ATT_ATTACH_TITLE) draft.title = text8(data, codepage);
    else if (id === ATT_ATTACH_DATA) draft.data = data;
    else if (id === ATT_ATTACHMENT) {
      try {
        readProps(data, codepage, draft);
      } catch {
        damaged ??= 'its attachment properties are damaged';
      }
    }
  }
  const attachments: TnefAttachment[] = [];
  for (const d of drafts) {
    const filename = d.long || d.title || d.short || d.display || undefined;
    const bytes = d.data ?? d.mapiData ?? (d.embedded && !isTnef(d.embedded) ? d.embedded : undefined);
    if (bytes) attachments.push({ filename, bytes });
    else if (d.embedded && depth < MAX_DEPTH) {
      // an attached Outlook message: its own attachments count
      const inner = readTnef(d.embedded, depth + 1);
      attachments.push(...inner.attachments);
      damaged ??= inner.damaged;
    }
  }
  return damaged ? { attachments, damaged } : { attachments };
}

const text8 = (b: Uint8Array, codepage: string) => decodeCharset(b, codepage).replace(/\0+$/, '').replace(/\0/g, '');
const text16 = (b: Buffer) => b.toString('utf16le').replace(/\0+$/, '');
const pad4 = (n: number) => (n + 3) & ~3;

/** Reads a MAPI property list, keeping the attachment's names and data. */
function readProps(buf: Buffer, codepage: string, draft: Draft): void {
  let at = 0;
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error(`truncated at byte ${at}`);
  };
  need(4);
  const count = buf.readUInt32LE(at);
  at += 4;
  for (let i = 0; i < count && at < buf.length; i++) {
    need(4);
    const type = buf.readUInt16LE(at);
    const id = buf.readUInt16LE(at + 2);
    at += 4;
    if (id >= 0x8000) {
      // a named property: GUID, then a numeric id or a UTF-16 name
      need(20);
      const kind = buf.readUInt32LE(at + 16);
      at += 20;
      if (kind === 0) at += 4;
      else {
        need(4);
        const len = buf.readUInt32LE(at);
        at += 4 + pad4(len);
      }
    }
    const base = type & 0x0fff;
    const multi = (type & 0x1000) !== 0;
    const variable = base === PT_STRING8 || base === PT_UNICODE || base === PT_BINARY || base === PT_OBJECT;
    if (!variable) {
      const size = FIXED_SIZE[base];
      if (size === undefined) throw new Error(`unknown property type 0x${type.toString(16)}`);
      let n = 1;
      if (multi) {
        need(4);
        n = buf.readUInt32LE(at);
        at += 4;
      }
      need(size * n);
      at += size * n;
      continue;
    }
    need(4);
    const values = buf.readUInt32LE(at);
    at += 4;
    for (let v = 0; v < values; v++) {
      need(4);
      const len = buf.readUInt32LE(at);
      at += 4;
      need(len);
      const value = buf.subarray(at, at + len);
      at += pad4(len);
      if (multi || v > 0) continue;
      const str = base === PT_UNICODE ? text16(value) : base === PT_STRING8 ? text8(value, codepage) : undefined;
      if (id === PR_ATTACH_LONG_FILENAME && str) draft.long = str;
      else if (id === PR_ATTACH_FILENAME && str) draft.short = str;
      else if (id === PR_DISPLAY_NAME && str) draft.display = str;
      else if (id === PR_ATTACH_DATA && base === PT_BINARY) draft.mapiData = value;
      else if (id === PR_ATTACH_DATA && base === PT_OBJECT && len > 16) draft.embedded = value.subarray(16);
    }
  }
}
