// What a channel (http, ftp, sftp, mail: domain/intake.ts) hands to the intake pipeline, and what it gets back.
// Channels depend on this file only (and the domain); the pipeline implements it.
import type { IntakeChannel, ImportRecord } from '../domain/intake.ts';
import type { IntakeReason } from '../domain/intake-reasons.ts';
import type { Scope } from '../domain/scope.ts';
import type { SenderVerdict } from '../domain/sender-verdict.ts';

export interface IncomingFile {
  scope: Scope;
  channel: IntakeChannel;
  /** who sent it: FTP user@address, e-mail From address, or the API key's account */
  sender: string;
  /** the name as received (FTP path basename, decoded e-mail attachment name, API Filename) */
  filename: string;
  bytes: Buffer;
  /** the e-mail's subject (mail only): evidence for the message's only file (docs/matching.md) */
  subject?: string;
  /** how many files the e-mail carried (mail only): with more than one, its subject names none of them */
  messageFiles?: number;
  /** a correlation id carried into logs (FTP session, IMAP message id, HTTP request id) */
  traceId?: string;
  /** mail only: who sent the message, as far as anyone checked (kept on the record, shown in words) */
  senderVerdict?: SenderVerdict;
  /** mail only: the sender policy holds the file (status `held`, this reason) until an owner releases it */
  hold?: IntakeReason;
  /** the upload key the channel's client presented (kept on the record: that key lists only its own files) */
  uploadKeyId?: string;
  /** SMTP: its intake step may run in the receiving process without a job, when that has room (local-runs.ts) */
  inProcess?: boolean;
}

/**
 * An upload's bytes once they have all arrived (IntakeReceiver.takeUpload): a ZIP archive or a
 * temporary upload on a store other than the database is in the store already, streamed there as
 * it arrived; anything else is in memory (a PDF is checked whole on arrival and handed whole to
 * the worker; at most the 5 MB document limit).
 */
export type TakenUpload = { kind: 'bytes'; bytes: Buffer } | { kind: 'stored'; sha256: string; size: number };

export interface IntakeReceiver {
  /**
   * Reads an upload (`body`, as the channel receives it) for receiveUpload: a `.zip` name, or a
   * `temporary` upload (held until its rename), on a store other than the database streams into
   * the store, anything else into memory. Past `maxBytes` it rejects with StoreLimitError while the
   * bytes stream, nothing kept; a store that cannot take them rejects with StoreUnavailableError
   * (a passing failure: 451, 503).
   */
  takeUpload(filename: string, body: AsyncIterable<Uint8Array>, maxBytes: number, opts?: { temporary?: boolean }): Promise<TakenUpload>;
  /**
   * receive() of a taken upload; resolves once it is staged and queued, as receive() does. A
   * stored upload under a name other than an archive's (a renamed temporary upload, at most 5 MB)
   * is read back from the store first.
   */
  receiveUpload(file: Omit<IncomingFile, 'bytes'>, upload: TakenUpload): Promise<ImportRecord>;
  /**
   * Stages the file durably and enqueues its job. Resolves only after both, so the channel may
   * acknowledge the file to its sender; rejects when either failed (the channel must not ack).
   * A file that is refused at once (e.g. not a PDF) still gets a record, with status `failed`.
   * A `.zip` name is a ZIP archive: it resolves once every file in it is staged and queued, with
   * the archive's record (status `unpacked`, or `failed` when refused whole).
   */
  receive(file: IncomingFile): Promise<ImportRecord>;
  /** A failed record for something received that carried no file (e.g. an e-mail without PDF). */
  recordFailure(file: Omit<IncomingFile, 'bytes'>, reason: IntakeReason): Promise<ImportRecord>;
  /** The scope's most recent records, newest first (FTP LIST feedback). */
  recent(scope: Scope, limit: number): Promise<ImportRecord[]>;
}
