// A warning that repeats while its cause lasts (Redis away: every connection of the process fails
// its reconnect several times a second) is written once, then once a period with how often it
// came: a readable log instead of hundreds of identical lines a minute.
import type { Logger } from './logger.ts';

export class RepeatedWarnings {
  private readonly seen = new Map<string, { at: number; count: number }>();

  constructor(
    private readonly log: Logger,
    private readonly periodMs = 30_000,
  ) {}

  /** Logs `msg` with `fields` unless the same `msg` and `err` were logged less than a period ago. */
  warn(fields: { err: string } & Record<string, unknown>, msg: string): void {
    const key = `${msg}\n${fields.err}`;
    const now = Date.now();
    const last = this.seen.get(key);
    if (last && now - last.at < this.periodMs) {
      last.count++;
      return;
    }
    this.seen.set(key, { at: now, count: 0 });
    this.log.warn(last?.count ? { ...fields, repeated: last.count, sinceMs: now - last.at } : fields, msg);
  }
}
