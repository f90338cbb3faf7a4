// uuencoded files in mail: old mailers and some scanners put `begin 644 name` blocks in the body
// text, or send them as x-uuencode / x-uue parts. Both the classic form (POSIX uuencode: each line
// starts with its byte count as a character, 4 characters make 3 bytes) and `begin-base64`
// (uuencode -m, ended by `====`) are read. Pure.

export interface UuFile {
  filename: string;
  bytes: Buffer;
}

const BEGIN = /^begin(-base64)? +[0-7]{3,4} +(.+?)\s*$/;
const MAX_FILES = 100;

/** Whether the text holds a `begin` line (cheap test before decoding). */
export const hasUuBlock = (text: string) => /(^|\n)begin(-base64)? +[0-7]{3,4} +\S/.test(text);

/** Every uuencoded file in the text, in order; blocks without `end` still yield what they hold. */
export function uudecodeAll(text: string): UuFile[] {
  const lines = text.split(/\r?\n/);
  const out: UuFile[] = [];
  for (let i = 0; i < lines.length && out.length < MAX_FILES; i++) {
    const m = BEGIN.exec(lines[i]);
    if (!m) continue;
    const base64 = Boolean(m[1]);
    const chunks: Buffer[] = [];
    const b64: string[] = [];
    for (i++; i < lines.length; i++) {
      const line = lines[i];
      if (base64) {
        if (line.trim() === '====') break;
        b64.push(line.trim());
        continue;
      }
      if (line.trim() === 'end') break;
      const bytes = decodeLine(line);
      if (bytes === 'end') continue;
      chunks.push(bytes);
    }
    const bytes = base64 ? Buffer.from(b64.join(''), 'base64') : Buffer.concat(chunks);
    if (bytes.length) out.push({ filename: m[2], bytes });
  }
  return out;
}

/** One line of classic uuencode; 'end' for the zero-length line before `end`. */
function decodeLine(line: string): Buffer | 'end' {
  if (!line.length) return 'end';
  const n = (line.charCodeAt(0) - 32) & 0x3f;
  if (n === 0) return 'end';
  // senders strip trailing spaces: missing characters are zeros
  const body = line.slice(1).padEnd(Math.ceil(n / 3) * 4, ' ');
  const out = Buffer.alloc(Math.ceil(n / 3) * 3);
  const v = (k: number) => (body.charCodeAt(k) - 32) & 0x3f;
  for (let g = 0, o = 0; o < out.length; g += 4, o += 3) {
    const a = v(g),
      b = v(g + 1),
      c = v(g + 2),
      d = v(g + 3);
    out[o] = (a << 2) | (b >> 4);
    out[o + 1] = ((b & 0x0f) << 4) | (c >> 2);
    out[o + 2] = ((c & 0x03) << 6) | d;
  }
  return out.subarray(0, n);
}
