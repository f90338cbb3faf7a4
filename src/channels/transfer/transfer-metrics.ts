// What the file-transfer channels count, on prom-client metrics of their own (the ops registry
// serves them on /metrics through `Metrics.ftp/sftp.observe`), and the lockout event for anything
// that wants to react (alerts). The FTP server counts on `ftpMetrics` (ftp_* series), the SFTP
// server on its own instance (sftp_*); tests may pass their own.
import { EventEmitter } from 'node:events';
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { LockoutSubject } from './lockout-policy.ts';

/** Where an FTP data transfer waited when it stalled (a label of ftp_transfer_stalls_total). */
export type StallPhase = 'pasv' | 'tcp_accept' | 'tls_handshake' | 'after_150';

export interface LockoutEvent {
  subject: LockoutSubject;
  address: string;
  username: string;
  lockoutMs: number;
}

/** Each counter the channel increments: its Prometheus series (metric and labels). */
const SERIES = {
  connectionsAccepted: ['sessions_total', {}],
  connectionsRefused: ['connections_refused_total', {}],
  loginsSucceeded: ['logins_total', {}],
  loginsFailed: ['logins_failed_total', { reason: 'credentials' }],
  loginsRefusedLockedOut: ['logins_failed_total', { reason: 'locked_out' }],
  loginsRefusedPlaintext: ['logins_failed_total', { reason: 'plaintext' }],
  lockouts: ['lockouts_total', {}],
  uploadsReceived: ['uploads_total', { outcome: 'received' }],
  uploadsRefusedName: ['uploads_total', { outcome: 'refused_name' }],
  uploadsRefusedTooLarge: ['uploads_total', { outcome: 'refused_too_large' }],
  uploadsAborted: ['uploads_total', { outcome: 'aborted' }],
  uploadsStagingFailed: ['uploads_total', { outcome: 'staging_failed' }],
  tempUploadsHeld: ['temp_uploads_held_total', {}],
  bytesReceived: ['received_bytes_total', {}],
} as const satisfies Record<string, readonly [string, Record<string, string>]>;
export type TransferCounter = keyof typeof SERIES;
export const TRANSFER_COUNTERS = Object.keys(SERIES) as TransferCounter[];

const HELP: Record<string, [help: string, labels: string[]]> = {
  sessions_total: ['control connections accepted', []],
  connections_refused_total: ['connections refused (too many, in total or for the account)', []],
  logins_total: ['logins that succeeded', []],
  logins_failed_total: ['logins refused, by reason', ['reason']],
  lockouts_total: ['lockouts started after repeated failed logins', []],
  uploads_total: ['uploads by outcome', ['outcome']],
  temp_uploads_held_total: ['temporary uploads held until their rename', []],
  received_bytes_total: ['bytes received in uploads', []],
  transfer_stalls_total: ['transfers that waited too long, by the phase they waited in (pasv, tcp_accept, tls_handshake, after_150)', ['phase']],
};

export class TransferMetrics extends EventEmitter<{ lockout: [event: LockoutEvent] }> {
  private readonly all: Metric[] = [];
  private readonly counters = new Map<string, Counter>();
  private readonly sessions: Gauge;
  private readonly transfers: Gauge;

  /** @param protocol the series' prefix and the help texts' subject: `ftp` or `sftp` */
  constructor(protocol: 'ftp' | 'sftp' = 'ftp') {
    super();
    const registers: Registry[] = [];
    const label = protocol.toUpperCase();
    for (const [name, [help, labelNames]] of Object.entries(HELP)) {
      this.counters.set(name, new Counter({ name: `${protocol}_${name}`, help: `${label} ${help}`, labelNames, registers }));
    }
    this.sessions = new Gauge({ name: `${protocol}_sessions_active`, help: `${label} connections open now`, registers });
    this.transfers = new Gauge({ name: `${protocol}_transfers_active`, help: `${label} uploads in progress now`, registers });
    this.all.push(...this.counters.values(), this.sessions, this.transfers);
  }

  inc(name: TransferCounter, by = 1): void {
    const [metric, labels] = SERIES[name];
    this.counters.get(metric)!.inc(labels, by);
  }

  stall(phase: StallPhase): void {
    this.counters.get('transfer_stalls_total')!.inc({ phase });
  }

  lockout(event: LockoutEvent): void {
    this.inc('lockouts');
    this.emit('lockout', event);
  }

  connectionOpened(): void {
    this.sessions.inc();
  }

  connectionClosed(): void {
    this.sessions.dec();
  }

  transferStarted(): void {
    this.transfers.inc();
  }

  transferEnded(): void {
    this.transfers.dec();
  }

  /** The prom-client metrics, for a registry that serves them. */
  metrics(): Metric[] {
    return [...this.all];
  }

  /** A counter's value now (tests and operators' tools compare it before and after). */
  async value(name: TransferCounter): Promise<number> {
    const [metric, labels] = SERIES[name];
    return seriesValue(this.counters.get(metric)!, labels);
  }

  async stalls(phase: StallPhase): Promise<number> {
    return seriesValue(this.counters.get('transfer_stalls_total')!, { phase });
  }

  /** Open control connections or running transfers on this node now. */
  async gauge(name: 'connections' | 'transfers'): Promise<number> {
    return seriesValue(name === 'connections' ? this.sessions : this.transfers, {});
  }
}

async function seriesValue(metric: Counter | Gauge, labels: Record<string, string>): Promise<number> {
  const { values } = await metric.get();
  const wanted = Object.entries(labels);
  return values.find((v) => wanted.every(([k, x]) => v.labels[k] === x))?.value ?? 0;
}

/** The process's FTP metrics (the `ftp` role of src/app/start-service.ts reports here). */
export const ftpMetrics = new TransferMetrics();
