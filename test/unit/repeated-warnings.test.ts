import { describe, expect, it, vi } from 'vitest';
import { RepeatedWarnings } from '../../src/platform/repeated-warnings.ts';
import type { Logger } from '../../src/platform/logger.ts';

describe('repeated warnings', () => {
  it('writes a warning once a period, then with how often it came in between', () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const lines: [Record<string, unknown>, string][] = [];
      const log = { warn: (fields: Record<string, unknown>, msg: string) => lines.push([fields, msg]) } as unknown as Logger;
      const warnings = new RepeatedWarnings(log, 1000);
      for (let i = 0; i < 50; i++) warnings.warn({ err: 'connect ECONNREFUSED', queue: 'intake' }, 'worker error');
      warnings.warn({ err: 'another cause' }, 'worker error');
      expect(lines).toEqual([
        [{ err: 'connect ECONNREFUSED', queue: 'intake' }, 'worker error'],
        [{ err: 'another cause' }, 'worker error'],
      ]);
      vi.setSystemTime(1500);
      warnings.warn({ err: 'connect ECONNREFUSED', queue: 'webhooks' }, 'worker error');
      expect(lines[2]).toEqual([{ err: 'connect ECONNREFUSED', queue: 'webhooks', repeated: 49, sinceMs: 1500 }, 'worker error']);
    } finally {
      vi.useRealTimers();
    }
  });
});
