// Reads one upload from an FTP data connection as a stream handed to `take` (the intake's
// takeUpload: into the document store, or into memory), with the size cap enforced while the
// bytes arrive: the store refuses the first byte over it (StoreLimitError) and keeps nothing.
// Backpressure is the store's: a slow store pauses the socket, and the client's TCP window.
import type { Duplex } from 'node:stream';
import type { TakenUpload } from '../../intake/intake-port.ts';
import { StoreLimitError } from '../../storage/document-store.ts';
import { completeDespiteReset, type UploadEnds } from './upload-completeness.ts';

export type UploadOutcome =
  | { kind: 'complete'; upload: TakenUpload; size: number; ends: UploadEnds; reset: boolean }
  | { kind: 'too-large'; received: number }
  | { kind: 'aborted'; reason: 'data-error' | 'stalled' | 'cancelled'; received: number }
  /** the intake could not take the bytes (the store down, slow, full): a passing failure */
  | { kind: 'failed'; error: unknown; received: number };

export interface ReadUploadOptions {
  maxBytes: number;
  /** no byte for this long aborts the transfer */
  stallMs: number;
  /** aborts the transfer (client gone, ABOR, shutdown) */
  signal: AbortSignal;
  /** after the cap, bytes still read (and dropped) so a client that ignores the 5xx can finish sending */
  drainBytes?: number;
  onProgress?: (bytes: number) => void;
}

/** The end of a file a format says where it ends in: a ZIP's directory record is within its last 64 KiB + 22 bytes. */
const TAIL_BYTES = 0xffff + 22;
/** The start of a file that names how it must end: an XML document's root element, after a prolog of comments (ZUGFeRD's run to 6 kB). */
const HEAD_BYTES = 0x10000;

class Broken extends Error {
  constructor(readonly reason: 'data-error' | 'stalled' | 'cancelled') {
    super(`upload ${reason}`);
  }
}

/** The broken transfer behind a store's error (the directory driver wraps what its source threw). */
function brokenIn(e: unknown): Broken | undefined {
  for (let c = e, depth = 0; c && depth < 4; c = (c as Error).cause, depth++) if (c instanceof Broken) return c;
  return undefined;
}

export async function streamUpload(
  socket: Duplex,
  options: ReadUploadOptions,
  take: (body: AsyncIterable<Uint8Array>) => Promise<TakenUpload>,
): Promise<UploadOutcome> {
  let received = 0;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  let why: 'stalled' | 'cancelled' | undefined;
  let reset = false;
  let stall: NodeJS.Timeout | undefined;
  /** rejects the read under way (a stall); a fresh one per read, as a promise that outlives the reads would keep every chunk */
  let interrupt: ((e: Error) => void) | undefined;
  // the clock runs while the client is awaited, not while the store writes (that is the store's time-out)
  const armStall = () => {
    clearTimeout(stall);
    // the connection stays open: the caller replies 426 first and then closes it, so the client reads why
    stall = setTimeout(() => {
      why ??= 'stalled';
      interrupt?.(new Broken('stalled'));
    }, options.stallMs);
  };
  const onAbort = () => {
    why ??= 'cancelled';
    socket.destroy();
  };
  // errors after the outcome (a destroyed socket's last words) are nobody's business any more
  socket.on('error', () => {});
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();

  // not destroyed when the store stops reading (over the cap): the rest is drained below
  const chunks = (socket.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>)[Symbol.asyncIterator]();
  async function* body(): AsyncIterable<Uint8Array> {
    try {
      for (;;) {
        armStall();
        const next = await new Promise<IteratorResult<Buffer>>((resolve, reject) => {
          interrupt = reject;
          chunks.next().then(resolve, reject);
        });
        interrupt = undefined;
        clearTimeout(stall);
        if (next.done) break;
        const chunk = next.value;
        received += chunk.length;
        options.onProgress?.(chunk.length);
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        tail = tail.length + chunk.length <= TAIL_BYTES ? Buffer.concat([tail, chunk]) : Buffer.concat([tail, chunk]).subarray(-TAIL_BYTES);
        yield chunk;
      }
    } catch {
      // a close or error without a clean end is a broken transfer, unless the file is whole and
      // only its connection was reset (see upload-completeness.ts); the caller checks the client
      if (why || !completeDespiteReset({ head, tail })) throw new Broken(why ?? 'data-error');
      reset = true;
    } finally {
      clearTimeout(stall);
    }
  }

  try {
    const upload = await take(body());
    return { kind: 'complete', upload, size: received, ends: { head, tail }, reset };
  } catch (e) {
    const broken = brokenIn(e);
    if (broken) return { kind: 'aborted', reason: broken.reason, received };
    if (why) return { kind: 'aborted', reason: why, received };
    if (e instanceof StoreLimitError) {
      // lets go of the socket (its 'readable' listener), so drain() reads on with 'data'; here, as
      // a store need not end what it read from (no read is pending: the store threw on a chunk)
      await chunks.return?.();
      return { kind: 'too-large', received: await drain(socket, options, received) };
    }
    socket.destroy();
    return { kind: 'failed', error: e, received };
  } finally {
    clearTimeout(stall);
    options.signal.removeEventListener('abort', onAbort);
  }
}

/** Reads and drops the rest of a file over the cap, up to drainBytes past it, then cuts; resolves with what was received in all. */
function drain(socket: Duplex, options: ReadUploadOptions, received: number): Promise<number> {
  return new Promise((resolve) => {
    let stall: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(stall);
      socket.off('data', onData);
      options.signal.removeEventListener('abort', cut);
      resolve(received);
    };
    const cut = () => {
      socket.destroy();
      done();
    };
    const arm = () => {
      clearTimeout(stall);
      stall = setTimeout(cut, options.stallMs);
    };
    const onData = (chunk: Buffer) => {
      arm();
      received += chunk.length;
      options.onProgress?.(chunk.length);
      if (received - options.maxBytes > (options.drainBytes ?? 0)) cut();
    };
    if (socket.readableEnded || socket.destroyed || received - options.maxBytes > (options.drainBytes ?? 0)) return cut();
    socket.once('end', done);
    socket.once('close', done);
    options.signal.addEventListener('abort', cut, { once: true });
    socket.on('data', onData);
    arm();
    socket.resume();
  });
}
