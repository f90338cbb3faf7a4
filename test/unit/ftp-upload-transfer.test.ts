// Reading an upload from a data connection with the cap enforced while it streams.
import { Duplex, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUpload } from '../../src/channels/ftp/upload-transfer.ts';

/** A stand-in data socket: what the test writes is what the server reads. */
function dataSocket(): { socket: Duplex; client: PassThrough } {
  const client = new PassThrough();
  const socket = Duplex.from({ readable: client, writable: new PassThrough() });
  return { socket, client };
}

const opts = (signal = new AbortController().signal) => ({ maxBytes: 10, stallMs: 5_000, signal });

describe('readUpload', () => {
  it('returns the bytes of an upload of exactly the cap', async () => {
    const { socket, client } = dataSocket();
    const p = readUpload(socket, opts());
    client.write(Buffer.from('12345'));
    client.end(Buffer.from('67890'));
    expect(await p).toEqual({ kind: 'complete', bytes: Buffer.from('1234567890') });
  });

  it('refuses at the first byte over the cap and tells the caller at once', async () => {
    const { socket, client } = dataSocket();
    let told = 0;
    const p = readUpload(socket, { ...opts(), onTooLarge: () => told++ });
    client.write(Buffer.from('1234567890'));
    client.write(Buffer.from('1'));
    expect(await p).toMatchObject({ kind: 'too-large', received: 11 });
    expect(told).toBe(1);
    expect(socket.destroyed).toBe(true);
  });

  it('drops what a client sends after the cap, up to drainBytes, then ends', async () => {
    const { socket, client } = dataSocket();
    let told = 0;
    const p = readUpload(socket, { ...opts(), drainBytes: 100, onTooLarge: () => told++ });
    client.write(Buffer.alloc(50));
    await new Promise((r) => setImmediate(r));
    expect(socket.destroyed).toBe(false);
    client.end(Buffer.alloc(20));
    expect(await p).toMatchObject({ kind: 'too-large', received: 70 });
    expect(told).toBe(1);
  });

  it('aborts a transfer that stalls, and one that is cancelled', async () => {
    const a = dataSocket();
    const stalled = readUpload(a.socket, { ...opts(), stallMs: 30 });
    a.client.write(Buffer.from('123'));
    expect(await stalled).toMatchObject({ kind: 'aborted', reason: 'stalled', received: 3 });

    const b = dataSocket();
    const ctl = new AbortController();
    const cancelled = readUpload(b.socket, opts(ctl.signal));
    b.client.write(Buffer.from('123'));
    ctl.abort();
    expect(await cancelled).toMatchObject({ kind: 'aborted', reason: 'cancelled' });
    expect(b.socket.destroyed).toBe(true);
  });

  it('a data connection that breaks instead of ending is aborted, not complete', async () => {
    const { socket, client } = dataSocket();
    const p = readUpload(socket, opts());
    client.write(Buffer.from('123'));
    await new Promise((r) => setImmediate(r));
    socket.destroy(new Error('ECONNRESET'));
    // what arrived goes along, for the caller to judge a reset after a complete file
    expect(await p).toMatchObject({ kind: 'aborted', reason: 'data-error', received: 3, bytes: Buffer.from('123') });
  });
});
