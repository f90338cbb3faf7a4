// What record a received file gets, decided before anything is written: its status and reason
// (refused at once, held, or received), its match name, and whether its bytes are kept.
import { unreadArchiveKind, unreadArchiveReason } from '../domain/archive.ts';
import { newId } from '../domain/ids.ts';
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';
import { sniffPdf } from '../formats/pdf.ts';
import { EMPTY_SHA256, sha256Of } from './archive-intake.ts';
import { normaliseFileName } from './file-name.ts';
import type { IncomingFile } from './intake-port.ts';
import type { NewImport } from './intake-repository.ts';

export const ACCOUNT_DISABLED = intakeReason('account_disabled');

/** The record a file gets: cheap permanent problems are decided here, so the channel can tell its sender at once. */
export function newImport(file: IncomingFile, disabled: boolean, archiveId: string | null = null): NewImport {
  const name = normaliseFileName(file.filename);
  const sniffed = name.ok && !unreadArchiveKind(file.filename, file.bytes) ? sniffPdf(file.bytes) : undefined;
  const refused = disabled
    ? ACCOUNT_DISABLED
    : (unreadArchiveReason(file.filename, file.bytes) ?? (!name.ok ? name.reason : sniffed && !sniffed.ok ? sniffed.reason : null));
  // a held file keeps its bytes and gets no job until an owner releases it; a refusal comes first
  const reason = refused ?? file.hold ?? null;
  const status = refused ? 'failed' : file.hold ? 'held' : 'received';
  return {
    id: newId('imp'),
    channel: file.channel,
    sender: file.sender,
    filename: file.filename,
    size: file.bytes.length,
    sha256: sha256Of(file.bytes),
    content: refused ? null : file.bytes,
    traceId: file.traceId ?? null,
    subject: file.subject ?? null,
    messageFiles: file.messageFiles ?? null,
    status,
    matchName: name.ok ? name.matchName : null,
    reason,
    archiveId,
    senderVerdict: file.senderVerdict ?? null,
    uploadKeyId: file.uploadKeyId ?? null,
  };
}

/** The record of a file that failed before its bytes could be taken (no bytes, no job). */
export function failedImport(file: Omit<IncomingFile, 'bytes'>, reason: IntakeReason): NewImport {
  const name = normaliseFileName(file.filename);
  return {
    id: newId('imp'),
    channel: file.channel,
    sender: file.sender,
    filename: file.filename,
    size: 0,
    sha256: EMPTY_SHA256,
    content: null,
    traceId: file.traceId ?? null,
    subject: file.subject ?? null,
    status: 'failed',
    matchName: name.ok ? name.matchName : null,
    reason,
    senderVerdict: file.senderVerdict ?? null,
  };
}
