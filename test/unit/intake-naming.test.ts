import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/platform/logger.ts';
import { plainReason } from '../../src/domain/intake-reasons.ts';
import { normaliseFileName } from '../../src/intake/file-name.ts';
import { WaitingForInvoice, type IntakeProcessor } from '../../src/intake/intake-processor.ts';
import { intakeBackoff, intakeQueue } from '../../src/intake/intake-queue.ts';
import { checkQueues, queuePrefix } from '../../src/queue/job-definition.ts';

describe('normaliseFileName', () => {
  it.each([
    ['F-2026-001.pdf', 'F-2026-001', 'F-2026-001.pdf'],
    ['F-2026-001.PDF', 'F-2026-001', 'F-2026-001.PDF'],
    ['f-2026-001.Pdf', 'f-2026-001', 'f-2026-001.Pdf'],
    ['  inv_abc.pdf ', 'inv_abc', 'inv_abc.pdf'],
    ['2026.001.pdf', '2026.001', '2026.001.pdf'],
    ['F-1.pdf.pdf', 'F-1.pdf', 'F-1.pdf.pdf'],
    ['F-1', 'F-1', 'F-1.pdf'],
    ['RE-2024-0815 (1).pdf', 'RE-2024-0815', 'RE-2024-0815 (1).pdf'],
    ['RE-2024-0815(12).PDF', 'RE-2024-0815', 'RE-2024-0815(12).PDF'],
    ['RE-2024-0848.pdf.p7m', 'RE-2024-0848', 'RE-2024-0848.pdf'],
    ['RE-2024-0848.PDF.P7M', 'RE-2024-0848', 'RE-2024-0848.PDF'],
  ])('%j -> match %j, document %j', (raw, matchName, documentName) => {
    expect(normaliseFileName(raw)).toEqual({ ok: true, matchName, documentName });
  });

  it('composes Unicode to NFC, so both forms give the same key', () => {
    const nfd = 'Caf\u0065\u0301-12.pdf';
    const nfc = 'Caf\u00e9-12.pdf';
    const a = normaliseFileName(nfd);
    const b = normaliseFileName(nfc);
    expect(a).toEqual(b);
    expect(a.ok && a.matchName).toBe('Caf\u00e9-12');
  });

  it.each(['../F-1.pdf', 'a/F-1.pdf', '/F-1.pdf', 'C:\\F-1.pdf', 'x\\..\\F-1.pdf'])('refuses path parts in %j', (raw) => {
    const v = normaliseFileName(raw);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason.text).toMatch(/has path parts/);
  });

  it.each(['.pdf', '   .PDF', '', '..', '. .pdf'])('refuses %j: no name before .pdf', (raw) => {
    const v = normaliseFileName(raw);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason.text).toMatch(/no invoice id or number/);
  });

  it('refuses control characters; takes names of any length (the evidence inside decides)', () => {
    expect(normaliseFileName('F\u0000-1.pdf').ok).toBe(false);
    expect(normaliseFileName('F\n1.pdf').ok).toBe(false);
    const long = `Rechnung fuer Ihre Bestellung vom 25. November bei der Firma Mustermann und Soehne GmbH Nr RE-2024-0815`;
    expect(long.length).toBeGreaterThan(100);
    expect(normaliseFileName(`${long}.pdf`)).toEqual({ ok: true, matchName: long, documentName: `${long}.pdf` });
  });
});

describe('intake backoff', () => {
  const backoff = intakeBackoff({ intakeBackoffMs: 1000, intakeBackoffMaxMs: 10_000 }, () => 1_000_000);

  it('doubles from the base up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 50, 500].map((n) => backoff(n))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000]);
  });

  it('never sleeps past the end of the match window', () => {
    expect(backoff(5, 'intake', new WaitingForInvoice(plainReason('F-1'), 1_000_000 + 3000))).toBe(3050);
    expect(backoff(1, 'intake', new WaitingForInvoice(plainReason('F-1'), 1_000_000 + 3000))).toBe(1000);
    expect(backoff(5, 'intake', new WaitingForInvoice(plainReason('F-1'), 1_000_000 - 5000))).toBe(1);
  });
});

describe('intake queue table', () => {
  it('has its one job with a handler and a failure rule', () => {
    expect(intakeQueue.jobs.map((j) => j.name)).toEqual(['intake.process']);
    expect(() => checkQueues([intakeQueue])).not.toThrow();
    expect(typeof intakeQueue.jobs[0].handler({ processor: {} as IntakeProcessor, log: {} as Logger })).toBe('function');
    expect(typeof intakeQueue.jobs[0].failed).toBe('function');
  });
});

describe('queue prefix', () => {
  it('is hash-tagged for Redis Cluster, keeping a prefix that already has braces', () => {
    expect(queuePrefix({ redisPrefix: 'ii' })).toBe('{ii}');
    expect(queuePrefix({ redisPrefix: '{prod-ii}' })).toBe('{prod-ii}');
  });
});

describe('staged bytes cache', () => {
  it('hands bytes over once and, when full, keeps the oldest (the next jobs) and refuses the newcomer', async () => {
    const { StagedBytesCache } = await import('../../src/intake/staged-bytes-cache.ts');
    const cache = new StagedBytesCache(10);
    cache.put('a', Buffer.alloc(4, 1));
    cache.put('b', Buffer.alloc(4, 2));
    cache.put('c', Buffer.alloc(4, 3)); // 12 > 10: c is refused, a and b stay
    expect(cache.size).toEqual({ files: 2, bytes: 8 });
    expect(cache.take('c')).toBeUndefined();
    expect(cache.take('a')).toEqual(Buffer.alloc(4, 1));
    expect(cache.take('a')).toBeUndefined();
    cache.put('d', Buffer.alloc(4, 4)); // room again
    expect(cache.size).toEqual({ files: 2, bytes: 8 });
    cache.put('big', Buffer.alloc(11));
    expect(cache.size).toEqual({ files: 2, bytes: 8 });
  });

  it('drops entries nobody took within their age to make room for new ones', async () => {
    const { StagedBytesCache } = await import('../../src/intake/staged-bytes-cache.ts');
    let now = 1_000;
    const cache = new StagedBytesCache(10, 500, () => now);
    cache.put('a', Buffer.alloc(4, 1));
    now += 300;
    cache.put('b', Buffer.alloc(4, 2));
    now += 300; // a is 600 ms old (expired), b 300 ms
    cache.put('c', Buffer.alloc(4, 3)); // does not fit: a goes, b stays
    expect(cache.size).toEqual({ files: 2, bytes: 8 });
    expect(cache.take('a')).toBeUndefined();
    expect(cache.take('b')).toEqual(Buffer.alloc(4, 2));
    expect(cache.take('c')).toEqual(Buffer.alloc(4, 3));
    now += 10_000; // expired entries that are never pushed out are still bounded by the budget
    cache.put('d', Buffer.alloc(10, 4));
    expect(cache.size).toEqual({ files: 1, bytes: 10 });
  });
});
