// The readiness checks (database, Redis, lifecycle, one per role) and the one way they are run:
// by GET /readyz (src/http/routes/health.ts) and by /metrics at scrape time
// (src/ops/service-gauges.ts), so that the probe and the alerts see the same answer.
import { withTimeout } from '../platform/timeouts.ts';

/** A named readiness probe; the wiring adds the database's, Redis's and each role's (FTP listening, IMAP connected, ...). */
export type ReadinessCheck = () => Promise<void>;

export interface ReadinessResult {
  name: string;
  ok: boolean;
  /** why it failed (the error's message) */
  problem?: string;
  /** how long it took to answer (or to time out) */
  seconds: number;
}

/** Each check gets `timeoutMs`; a stuck dependency fails its check, never hangs the caller. */
const READINESS_TIMEOUT_MS = 2000;

export function runReadinessChecks(checks: ReadonlyMap<string, ReadinessCheck>, timeoutMs = READINESS_TIMEOUT_MS): Promise<ReadinessResult[]> {
  return Promise.all(
    [...checks].map(async ([name, check]): Promise<ReadinessResult> => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        await withTimeout(check(), timeoutMs);
        return { name, ok: true, seconds: seconds() };
      } catch (e) {
        return { name, ok: false, problem: (e as Error).message, seconds: seconds() };
      }
    }),
  );
}
