// X-Filename: the name of a file sent as the raw body (the dashboard's drop zone), percent-encoded
// UTF-8 as encodeURIComponent writes it. A browser sends a base name of printable characters, so
// anything else is a forged or broken request and gets the spec's 400 naming the header, never a
// 500 (decodeURIComponent throws on bad escapes) and never a silently shortened name.
import { ApiError } from './api-error.ts';

const FILE_NAME_HEADER = 'X-Filename';
const MAX_NAME = 250;

const refused = (detail: string) => ApiError.badRequest(`Header ${FILE_NAME_HEADER} ${detail}`, FILE_NAME_HEADER);

/** The file name the header carries, or the 400 that says what is wrong with it. */
export function fileNameFromHeader(raw: string | string[] | undefined): string | ApiError {
  if (raw === undefined || raw === '') return refused('is required: the file name, percent-encoded');
  if (Array.isArray(raw)) return refused('may be sent once');
  // header bytes outside printable ASCII arrive as latin-1 guesses: the name must be escaped
  if (/[^\x20-\x7e]/.test(raw)) return refused('must be percent-encoded (encodeURIComponent)');
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return refused('is not valid percent-encoded UTF-8');
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return refused('contains control characters');
  if (/[/\\]/.test(name) || name === '.' || name === '..') return refused('must be a plain file name, without path separators');
  if (name.trim() === '') return refused('is required: the file name, percent-encoded');
  if (name.length > MAX_NAME) return refused(`is longer than ${MAX_NAME} characters`);
  return name;
}
