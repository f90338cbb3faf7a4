// What the FTP channel counts, for the ops role's /metrics: plain counters and gauges that a
// Prometheus collector reads on scrape, and events for anything that wants to react (alerts on
// lockouts). The service's FTP server uses the shared `ftpMetrics`; tests pass their own.
import { EventEmitter } from 'node:events';
import type { LockoutSubject } from './lockout-policy.ts';

export const FTP_COUNTERS = [
  'connectionsAccepted',
  'connectionsRefused',
  'loginsSucceeded',
  'loginsFailed',
  'loginsRefusedPlaintext',
  'loginsRefusedLockedOut',
  'lockouts',
  'uploadsReceived',
  'uploadsRefusedName',
  'uploadsRefusedTooLarge',
  'uploadsAborted',
  'uploadsStagingFailed',
  'tempUploadsHeld',
  'bytesReceived',
] as const;
export type FtpCounter = (typeof FTP_COUNTERS)[number];

export interface FtpLockoutEvent {
  subject: LockoutSubject;
  address: string;
  username: string;
  lockoutMs: number;
}

export interface FtpMetricsEvents {
  count: [name: FtpCounter, by: number];
  lockout: [event: FtpLockoutEvent];
}

export class FtpMetrics extends EventEmitter<FtpMetricsEvents> {
  readonly counters = Object.fromEntries(FTP_COUNTERS.map((n) => [n, 0])) as Record<FtpCounter, number>;
  /** open control connections and transfers in progress, on this node */
  readonly gauges = { connections: 0, transfers: 0 };

  inc(name: FtpCounter, by = 1): void {
    this.counters[name] += by;
    this.emit('count', name, by);
  }

  lockout(event: FtpLockoutEvent): void {
    this.inc('lockouts');
    this.emit('lockout', event);
  }
}

/** The process's FTP metrics (the `ftp` role of src/app/service.ts reports here). */
export const ftpMetrics = new FtpMetrics();
