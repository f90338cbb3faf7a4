// What an FTP client sees in its flat directory: its recent uploads with their intake status, a
// readable `<name>.error.txt` next to each failed one, and its own temporary uploads. Pure.
//
// The status is in the owner column of the `ls -l` line (`-r--r--r-- 1 attached live ...`), which
// FileZilla, WinSCP, lftp and basic-ftp show as "owner"; the mode is in the group column.
import { TRANSFER_CHANNELS } from '../../domain/channels.ts';
import type { ImportRecord, IntakeStatus } from '../../domain/intake.ts';
import type { Mode } from '../../domain/scope.ts';

const ERROR_SUFFIX = '.error.txt';

/** FTP and SFTP uploads share the account-and-mode's one flat directory. */
const FILE_CHANNELS: ReadonlySet<string> = new Set(TRANSFER_CHANNELS);

type EntryStatus = IntakeStatus | 'uploading';

export interface DirectoryEntry {
  name: string;
  size: number;
  mtime: Date;
  status: EntryStatus;
  /** bytes a RETR returns (only the error texts are readable) */
  content?: Buffer;
}

export interface PendingUpload {
  name: string;
  size: number;
  at: Date;
}

/** Statuses whose file has a readable `<name>.error.txt` next to it. */
const EXPLAINED: ReadonlySet<IntakeStatus> = new Set(['failed', 'waiting']);

/**
 * The text of `<name>.error.txt`: what failed (or what the file waits for, and until when), why,
 * and what to do. A file that matches no invoice yet has one from its first try on, so the sender
 * learns at once that its name matched nothing, not when the match window ends.
 */
function errorText(r: ImportRecord): string {
  const waiting = r.status === 'waiting';
  return [
    `File: ${r.filename}`,
    `Status: ${r.status}`,
    `Reason: ${r.reason ?? 'unknown'}`,
    `Received: ${r.receivedAt.toISOString()}`,
    `Intake id: ${r.id}`,
    waiting
      ? 'It is attached as soon as that invoice exists. If the name is wrong, upload the file again named <invoice_number>.pdf or <invoice_id>.pdf.'
      : 'Upload a corrected file under the same name to try again.',
    '',
  ].join('\r\n');
}

/** A name that can be shown on one line of a listing (records of other channels may carry any name). */
function listable(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length > 0 && !/[/\\\u0000-\u001f\u007f]/.test(name);
}

/**
 * The directory: records newest first (as recent() returns them), one entry per name (the newest
 * upload of that name), error texts after their files, then the session's temporary uploads.
 */
export function buildListing(records: ImportRecord[], pending: PendingUpload[] = []): DirectoryEntry[] {
  const out: DirectoryEntry[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    if (!FILE_CHANNELS.has(r.channel) || !listable(r.filename)) continue;
    const key = r.filename.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ name: r.filename, size: r.size, mtime: r.updatedAt, status: r.status });
    if (EXPLAINED.has(r.status)) {
      const content = Buffer.from(errorText(r), 'utf8');
      out.push({ name: `${r.filename}${ERROR_SUFFIX}`, size: content.length, mtime: r.updatedAt, status: r.status, content });
    }
  }
  for (const p of pending) {
    if (seen.has(p.name.toLowerCase())) continue;
    out.push({ name: p.name, size: p.size, mtime: p.at, status: 'uploading' });
  }
  return out;
}

/** The entry a client name refers to (names compare case-insensitively, like the matcher's `.pdf`). */
export function findEntry(entries: DirectoryEntry[], name: string): DirectoryEntry | undefined {
  return entries.find((e) => e.name === name) ?? entries.find((e) => e.name.toLowerCase() === name.toLowerCase());
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `Mon DD HH:MM` for the last six months, `Mon DD  YYYY` before (the `ls -l` convention), in UTC. */
export function lsDate(date: Date, now: Date): string {
  const recent = now.getTime() - date.getTime() < 182 * 86_400_000 && date.getTime() <= now.getTime() + 3_600_000;
  const day = `${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')}`;
  return recent ? `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}` : `${day}  ${date.getUTCFullYear()}`;
}

/** One `ls -l` line: the status as owner, the mode as group. */
export function lsLine(
  e: { name: string; size: number; mtime: Date; status?: string; isDirectory?: () => boolean },
  mode: Mode | string,
  now = new Date(),
): string {
  const dir = e.isDirectory?.() ?? false;
  const perms = dir ? 'dr-xr-xr-x' : e.status === 'uploading' ? '-rw-r--r--' : '-r--r--r--';
  const owner = (dir ? 'ftp' : (e.status ?? 'ftp')).padEnd(9);
  return `${perms} 1 ${owner} ${String(mode).padEnd(5)} ${String(e.size).padStart(10)} ${lsDate(e.mtime, now)} ${e.name}`;
}

export type DeleteVerdict = { kind: 'replace-next'; message: string } | { kind: 'refused'; reason: 'permission' | 'no-such-file'; message: string };

/**
 * A delete (FTP DELE, SFTP REMOVE) of a name that is not a held temporary upload. Nothing that was
 * received is ever deleted, but WinSCP and FileZilla replace a file by uploading a temporary name,
 * deleting the old name and renaming: a delete of a received file is therefore answered as "about
 * to be replaced" (and deletes nothing), so that the rename that follows hands the new file in.
 */
export function deleteVerdict(name: string, entry: DirectoryEntry | undefined): DeleteVerdict {
  if (!entry) return { kind: 'refused', reason: 'no-such-file', message: `No such file: ${name}` };
  if (entry.content || entry.status === 'uploading') {
    return {
      kind: 'refused',
      reason: 'permission',
      message: `Permission denied: ${entry.name} cannot be deleted (an .error.txt goes away when its file is uploaded again)`,
    };
  }
  return {
    kind: 'replace-next',
    message: `${entry.name} is about to be replaced: nothing was deleted; the next upload or rename to this name is handed in as a new file`,
  };
}
