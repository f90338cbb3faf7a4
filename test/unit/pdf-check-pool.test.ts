import { afterAll, describe, expect, it } from 'vitest';
import { checkPdf } from '../../src/formats/pdf.ts';
import { createPdfCheckPool } from '../../src/intake/pdf-check-pool.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { said } from '../helpers/reasons.ts';
import { threadNices } from '../helpers/thread-nices.ts';

const pool = createPdfCheckPool(2);
afterAll(() => pool.close());

describe('PDF check pool (worker threads, started under vitest)', () => {
  it('gives the same verdicts as the domain check, computed in its threads', async () => {
    const good = await makePdf('pool');
    const big = await makePdf('big', 5 * 1024 * 1024 - 20_000);
    const truncated = good.subarray(0, Math.floor(good.length / 2));
    const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 7)]);
    const before = pool.stats().checked;
    const verdicts = await Promise.all([good, big, truncated, garbage].map((b) => pool.check(b)));
    expect(verdicts[0]).toEqual({ ok: true, pages: 1, einvoices: [] });
    expect(verdicts[1]).toEqual({ ok: true, pages: 1, einvoices: [] });
    expect(verdicts[2]).toEqual(await checkPdf(truncated));
    expect(verdicts[3]).toEqual(await checkPdf(garbage));
    expect(verdicts[3].ok).toBe(false);
    expect(pool.stats().checked - before).toBe(4);
    expect(pool.stats().threads).toBe(2);
  });

  it('answers empty, oversized and headerless files without a thread', async () => {
    const before = pool.stats().checked;
    expect(await pool.check(Buffer.alloc(0))).toEqual({ ok: false, reason: said('The file is empty; send it again') });
    expect(await pool.check(Buffer.from('just text'))).toEqual({
      ok: false,
      reason: said('The file is not a PDF (no %PDF- header); send the invoice as a PDF file'),
    });
    expect((await pool.check(Buffer.alloc(5 * 1024 * 1024 + 1, 0x25))).ok).toBe(false);
    expect(pool.stats().checked).toBe(before);
  });

  it("notes each thread's own heap, and forgets a thread once piscina ends it (idle, or closed)", async () => {
    const watched = createPdfCheckPool(2, { idleMs: 300 });
    try {
      expect(watched.heaps()).toEqual({ threads: 0, usedBytes: 0, totalBytes: 0 });
      watched.warm();
      await Promise.all([watched.check(await makePdf('heap a')), watched.check(await makePdf('heap b'))]);
      await expect.poll(() => watched.heaps().threads).toBe(2);
      const h = watched.heaps();
      expect(h.usedBytes).toBeGreaterThan(2 * 1024 * 1024);
      expect(h.totalBytes).toBeGreaterThanOrEqual(h.usedBytes);
      // idle past idleMs: piscina ends both threads, and their heaps no longer count
      await expect.poll(() => watched.heaps(), { timeout: 10_000 }).toEqual({ threads: 0, usedBytes: 0, totalBytes: 0 });
      expect(await watched.check(await makePdf('heap c'))).toEqual({ ok: true, pages: 1, einvoices: [] });
      expect(watched.heaps().threads).toBe(1);
    } finally {
      await watched.close();
    }
    expect(watched.heaps().threads).toBe(0);
  });

  it('starts its threads on demand or when warmed', async () => {
    const lazy = createPdfCheckPool(3);
    try {
      expect(lazy.stats().threads).toBe(0);
      lazy.warm();
      expect(lazy.stats().threads).toBe(3);
      expect(await lazy.check(await makePdf('warm'))).toEqual({ ok: true, pages: 1, einvoices: [] });
    } finally {
      await lazy.close();
    }
  });

  it('runs its threads at the nice value it is given, the rest of the process untouched (Linux, read from /proc)', async () => {
    const before = threadNices().filter((t) => t.nice === 7).length;
    const niced = createPdfCheckPool(2, { priority: 7 });
    try {
      niced.warm();
      expect(await niced.check(await makePdf('niced'))).toEqual({ ok: true, pages: 1, einvoices: [] });
      // each pool thread, and the threads it starts (they inherit it), runs at 7
      await expect.poll(() => threadNices().filter((t) => t.nice === 7).length - before, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(threadNices().find((t) => t.tid === process.pid)?.nice).toBe(0);
    } finally {
      await niced.close();
    }
    await expect.poll(() => threadNices().filter((t) => t.nice === 7).length, { timeout: 10_000 }).toBe(before);
  });

  it('ends a thread that has had no file for idleMs, and starts one again for the next file', async () => {
    const idle = createPdfCheckPool(1, { idleMs: 100 });
    try {
      expect(await idle.check(await makePdf('idle'))).toEqual({ ok: true, pages: 1, einvoices: [] });
      await expect.poll(() => idle.stats().threads, { timeout: 10_000 }).toBe(0);
      expect(await idle.check(await makePdf('again'))).toEqual({ ok: true, pages: 1, einvoices: [] });
      expect(idle.stats().checked).toBe(2);
    } finally {
      await idle.close();
    }
  });

  it('fails a file that kills its thread, permanently, and carries on with a new thread', async () => {
    const dying = createPdfCheckPool(1, { threadUrl: new URL('./fixtures/dying-pdf-thread.mjs', import.meta.url) });
    try {
      const pdf = await makePdf('dies');
      expect(await dying.check(pdf)).toEqual({
        ok: false,
        reason: said(
          'The PDF could not be checked: it needs more memory than a check may use; send a smaller or simpler PDF of the invoice (print it to PDF again)',
        ),
      });
      expect(await dying.check(pdf)).toEqual({
        ok: false,
        reason: said(
          'The PDF could not be checked: it needs more memory than a check may use; send a smaller or simpler PDF of the invoice (print it to PDF again)',
        ),
      });
    } finally {
      await dying.close();
    }
  });

  it("fails a check that outlasts timeoutMs of its thread's CPU, and answers one that ends in time or only waits", { timeout: 180_000 }, async () => {
    const slow = createPdfCheckPool(1, { timeoutMs: 1000, threadUrl: new URL('./fixtures/slow-pdf-thread.mjs', import.meta.url) });
    try {
      const pdf = await makePdf('slow');
      // the fixture works 100 ms of CPU for each unit of the file's last byte (200 and up: waits on a timer)
      const taking = (units: number) => Buffer.concat([pdf, Buffer.from([units])]);
      expect(await slow.check(taking(1))).toEqual({ ok: true, pages: 1, einvoices: [] });
      expect(await slow.check(taking(20))).toEqual({
        ok: false,
        reason: said('The PDF could not be checked within 1 s; send it again, or a smaller or simpler PDF of the invoice'),
      });
      // the watch of a check that ended in time does not abort a later one
      expect(await slow.check(taking(2))).toEqual({ ok: true, pages: 1, einvoices: [] });
      // 3 s in its thread without using the CPU (a thread the scheduler starves, PDF_CHECK_PRIORITY):
      // the budget is the thread's CPU time, so the wait is not the file's and it passes
      const t0 = Date.now();
      expect(await slow.check(taking(230))).toEqual({ ok: true, pages: 1, einvoices: [] });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(3000);
    } finally {
      await slow.close();
    }
  });

  it('rejects (transient, the job runs again) a check whose thread only waited past waitLimitMs: the load, not the file', async () => {
    const starved = createPdfCheckPool(1, { timeoutMs: 1000, waitLimitMs: 2000, threadUrl: new URL('./fixtures/slow-pdf-thread.mjs', import.meta.url) });
    try {
      // 3 s on a timer, no CPU: past the wait limit with the CPU budget unspent
      await expect(starved.check(Buffer.concat([await makePdf('starved'), Buffer.from([230])]))).rejects.toThrow(
        /not checked within 2 s: the PDF check threads had no CPU for it/,
      );
    } finally {
      await starved.close();
    }
  });

  it('rejects (transient) when its thread cannot even start', async () => {
    const broken = createPdfCheckPool(1, { threadUrl: new URL('./fixtures/no-such-thread.mjs', import.meta.url) });
    try {
      await expect(broken.check(await makePdf('no thread'))).rejects.toThrow();
    } finally {
      await broken.close();
    }
  });

  it("leaves the caller's buffer intact (it copies, never transfers the original)", async () => {
    const good = await makePdf('intact');
    const copy = Buffer.from(good);
    await pool.check(good);
    expect(good.equals(copy)).toBe(true);
  });
});
