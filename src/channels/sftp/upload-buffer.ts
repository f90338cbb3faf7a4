// One file being written through an SFTP handle, in memory: writes arrive at offsets (clients
// pipeline several at a time), the size cap is enforced on each write, and the bytes are put
// together only at close. Pure.

export class UploadBuffer {
  private readonly chunks: { offset: number; data: Buffer }[] = [];
  private end = 0;
  /** set by the first write past the cap; everything held is dropped then */
  tooLarge = false;

  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.end;
  }

  /** Keeps a copy of the data (the SSH layer may reuse its buffer); false once over the cap. */
  write(offset: number, data: Buffer): boolean {
    if (this.tooLarge) return false;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + data.length > this.maxBytes) {
      this.tooLarge = true;
      this.chunks.length = 0;
      return false;
    }
    this.chunks.push({ offset, data: Buffer.from(data) });
    this.end = Math.max(this.end, offset + data.length);
    return true;
  }

  /** The file as a disk would hold it: later writes win where they overlap, gaps read as zeros. */
  bytes(): Buffer {
    const sequential = this.chunks.every((c, i) => c.offset === (i === 0 ? 0 : this.chunks[i - 1].offset + this.chunks[i - 1].data.length));
    if (sequential)
      return Buffer.concat(
        this.chunks.map((c) => c.data),
        this.end,
      );
    const out = Buffer.alloc(this.end);
    for (const c of this.chunks) c.data.copy(out, c.offset);
    return out;
  }
}
