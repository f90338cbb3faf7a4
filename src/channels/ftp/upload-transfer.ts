// Reads one upload from an FTP data connection into memory with the size cap enforced while the
// bytes arrive: the first byte over the cap drops everything read so far.
import type { Duplex } from 'node:stream';

export type UploadOutcome =
  | { kind: 'complete'; bytes: Buffer }
  | { kind: 'too-large'; received: number }
  | { kind: 'aborted'; reason: 'data-error' | 'stalled' | 'cancelled'; received: number; bytes?: Buffer };

export interface ReadUploadOptions {
  maxBytes: number;
  /** no byte for this long aborts the transfer */
  stallMs: number;
  /** aborts the transfer (client gone, ABOR, shutdown) */
  signal: AbortSignal;
  /** called once, at the first byte over the cap, so the 5xx can go out before the client finishes */
  onTooLarge?: () => void;
  /** after the cap, bytes still read (and dropped) so a client that ignores the 5xx can finish sending */
  drainBytes?: number;
  onProgress?: (bytes: number) => void;
}

export function readUpload(socket: Duplex, options: ReadUploadOptions): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let received = 0;
    let overflow = false;
    let settled = false;
    let stall: NodeJS.Timeout | undefined;

    const finish = (outcome: UploadOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(stall);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onBroken);
      socket.off('close', onBroken);
      options.signal.removeEventListener('abort', onAbort);
      chunks.length = 0;
      resolve(outcome);
    };
    const armStall = () => {
      clearTimeout(stall);
      // the caller replies 426 first and then closes the data connection, so the client reads why
      stall = setTimeout(() => {
        finish(overflow ? { kind: 'too-large', received } : { kind: 'aborted', reason: 'stalled', received });
      }, options.stallMs);
    };
    const onData = (chunk: Buffer) => {
      armStall();
      received += chunk.length;
      options.onProgress?.(chunk.length);
      if (overflow) {
        if (received - options.maxBytes > (options.drainBytes ?? 0)) {
          socket.destroy();
          finish({ kind: 'too-large', received });
        }
        return;
      }
      size += chunk.length;
      if (size > options.maxBytes) {
        overflow = true;
        chunks.length = 0;
        options.onTooLarge?.();
        if ((options.drainBytes ?? 0) <= 0) {
          socket.destroy();
          finish({ kind: 'too-large', received });
        }
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(overflow ? { kind: 'too-large', received } : { kind: 'complete', bytes: Buffer.concat(chunks, size) });
    // a close or error without a clean end is a broken transfer; what arrived goes with it, for the
    // caller to judge whether it is a complete file followed by a reset (see upload-completeness.ts)
    const onBroken = () =>
      finish(overflow ? { kind: 'too-large', received } : { kind: 'aborted', reason: 'data-error', received, bytes: size ? Buffer.concat(chunks, size) : undefined });
    const onAbort = () => {
      socket.destroy();
      finish(overflow ? { kind: 'too-large', received } : { kind: 'aborted', reason: 'cancelled', received });
    };

    // errors after the outcome (a destroyed socket's last words) are nobody's business any more
    socket.on('error', () => {});
    if (options.signal.aborted) return onAbort();
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onBroken);
    socket.once('close', onBroken);
    options.signal.addEventListener('abort', onAbort, { once: true });
    armStall();
    socket.resume();
  });
}
