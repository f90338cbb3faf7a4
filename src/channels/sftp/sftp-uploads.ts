// An SFTP upload from OPEN to CLOSE: its writes go on front to back (ordered-writes.ts) into the
// intake's takeUpload as they arrive (transfer-directory.ts: an archive or a temporary upload
// into the document store, anything else, and everything on the database store, into memory), so
// an archive of 200 MB never sits in this process. A write is answered once the store took it.
import type { TakenUpload } from '../../intake/intake-port.ts';
import type { TransferDirectory } from '../transfer/transfer-directory.ts';
import { tooLargeText } from '../transfer/upload-names.ts';
import { OrderedWrites, type WriteRefusal } from './ordered-writes.ts';

export interface UploadHandle {
  kind: 'upload';
  path: string;
  writes: OrderedWrites;
  /** the intake's reading of the upload: settles once the close ended the writes (or they failed) */
  taken: Promise<TakenUpload>;
}

/** The store could not take the bytes (StoreUnavailableError, a failing disk): nothing was received. */
export const STORE_FAILED_TEXT = 'The file could not be stored right now: upload it again later';

export function openUpload(dir: TransferDirectory, name: string, cap: number): UploadHandle {
  const writes = new OrderedWrites(cap);
  const taken = dir.takeUpload(name, writes.body(), cap);
  // a store that fails mid-upload fails the writes waiting for it (their replies say so)
  taken.catch((err) => writes.fail(err));
  return { kind: 'upload', path: name, writes, taken };
}

const MB = (n: number) => Math.round(n / 1024 / 1024);

/** What the client reads when a write (and then the close) is refused. */
export function refusalText(handle: UploadHandle, refusal: WriteRefusal): string {
  const name = handle.path;
  switch (refusal) {
    case 'too-large':
      return tooLargeText(name, handle.writes.maxBytes);
    case 'rewrite':
      return `${name}: a write over bytes already received (a rewrite) is not supported, as the file streams into storage; write it front to back: refused, nothing was received`;
    case 'too-far-ahead':
      return `${name}: a write more than ${MB(handle.writes.windowBytes)} MB ahead of the bytes received so far; write the file front to back: refused, nothing was received`;
    case 'crowded':
      return `${name}: more than ${MB(handle.writes.windowBytes)} MB of writes sent without waiting for their replies: refused, nothing was received`;
    case 'failed':
      return STORE_FAILED_TEXT;
  }
}
