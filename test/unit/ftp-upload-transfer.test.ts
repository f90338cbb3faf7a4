// Reading an upload from a data connection as a stream, with the cap enforced while it streams.
import { Duplex, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamUpload } from '../../src/channels/ftp/upload-transfer.ts';
import type { TakenUpload } from '../../src/intake/intake-port.ts';
import { collect } from '../../src/storage/store-bytes.ts';

/** A stand-in data socket: what the test writes is what the server reads. */
function dataSocket(): { socket: Duplex; client: PassThrough } {
  const client = new PassThrough();
  const socket = Duplex.from({ readable: client, writable: new PassThrough() });
  return { socket, client };
}

const opts = (signal = new AbortController().signal) => ({ maxBytes: 10, stallMs: 5_000, signal });
/** the intake's in-memory take, with the same cap */
const take = async (body: AsyncIterable<Uint8Array>): Promise<TakenUpload> => ({ kind: 'bytes', bytes: (await collect(body, 10)).buffer });

describe('streamUpload', () => {
  it('hands the bytes of an upload of exactly the cap to the intake', async () => {
    const { socket, client } = dataSocket();
    const p = streamUpload(socket, opts(), take);
    client.write(Buffer.from('12345'));
    client.end(Buffer.from('67890'));
    expect(await p).toMatchObject({ kind: 'complete', upload: { kind: 'bytes', bytes: Buffer.from('1234567890') }, size: 10, reset: false });
  });

  it('refuses at the first byte over the cap and cuts the connection', async () => {
    const { socket, client } = dataSocket();
    const p = streamUpload(socket, opts(), take);
    client.write(Buffer.from('1234567890'));
    client.write(Buffer.from('1'));
    expect(await p).toMatchObject({ kind: 'too-large', received: 11 });
    expect(socket.destroyed).toBe(true);
  });

  it('drops what a client sends after the cap, up to drainBytes, then ends', async () => {
    const { socket, client } = dataSocket();
    const p = streamUpload(socket, { ...opts(), drainBytes: 100 }, take);
    client.write(Buffer.alloc(50));
    await new Promise((r) => setImmediate(r));
    expect(socket.destroyed).toBe(false);
    client.end(Buffer.alloc(20));
    expect(await p).toMatchObject({ kind: 'too-large', received: 70 });
  });

  it('aborts a transfer that stalls, and one that is cancelled', async () => {
    const a = dataSocket();
    const stalled = streamUpload(a.socket, { ...opts(), stallMs: 30 }, take);
    a.client.write(Buffer.from('123'));
    expect(await stalled).toMatchObject({ kind: 'aborted', reason: 'stalled', received: 3 });

    const b = dataSocket();
    const ctl = new AbortController();
    const cancelled = streamUpload(b.socket, opts(ctl.signal), take);
    b.client.write(Buffer.from('123'));
    await new Promise((r) => setImmediate(r));
    ctl.abort();
    expect(await cancelled).toMatchObject({ kind: 'aborted', reason: 'cancelled' });
    expect(b.socket.destroyed).toBe(true);
  });

  it('a data connection that breaks instead of ending is aborted, unless the file ended like a PDF', async () => {
    const { socket, client } = dataSocket();
    const p = streamUpload(socket, opts(), take);
    client.write(Buffer.from('123'));
    await new Promise((r) => setImmediate(r));
    socket.destroy(new Error('ECONNRESET'));
    expect(await p).toMatchObject({ kind: 'aborted', reason: 'data-error', received: 3 });

    const whole = dataSocket();
    const q = streamUpload(whole.socket, { ...opts(), maxBytes: 100 }, async (body) => ({ kind: 'bytes', bytes: (await collect(body, 100)).buffer }));
    whole.client.write(Buffer.from('%PDF-1.4\n%%EOF\n'));
    await new Promise((r) => setImmediate(r));
    whole.socket.destroy(new Error('ECONNRESET'));
    expect(await q).toMatchObject({ kind: 'complete', reset: true, upload: { bytes: Buffer.from('%PDF-1.4\n%%EOF\n') } });
  });

  it('a store that fails while the bytes stream is a failure of its own (451), the connection cut', async () => {
    const { socket, client } = dataSocket();
    const p = streamUpload(socket, opts(), async (body) => {
      for await (const _ of body) throw new Error('store down');
      throw new Error('unreachable');
    });
    client.write(Buffer.from('123'));
    expect(await p).toMatchObject({ kind: 'failed', error: new Error('store down') });
    expect(socket.destroyed).toBe(true);
  });
});
