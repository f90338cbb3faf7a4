// What the file-transfer channels count, on prom-client metrics registered in the registry they
// are given: the container's, which GET /metrics serves (the ftp role counts ftp_* series there,
// the sftp role sftp_*). `transferReadings` reads them back.
import { Counter, Gauge, Registry } from 'prom-client';
import type { TransferChannel } from '../../domain/channels.ts';

/** Where an FTP data transfer waited when it stalled (a label of ftp_transfer_stalls_total). */
export type StallPhase = 'pasv' | 'tcp_accept' | 'tls_handshake' | 'after_150';

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
  uploadsRefusedAscii: ['uploads_total', { outcome: 'refused_ascii_mode' }],
  uploadsAborted: ['uploads_total', { outcome: 'aborted' }],
  uploadsStagingFailed: ['uploads_total', { outcome: 'staging_failed' }],
  heldUploads: ['held_uploads_total', {}],
  bytesReceived: ['received_bytes_total', {}],
} as const satisfies Record<string, readonly [string, Record<string, string>]>;
export type TransferCounter = keyof typeof SERIES;
const TRANSFER_COUNTERS = Object.keys(SERIES) as TransferCounter[];

const HELP: Record<string, [help: string, labels: string[]]> = {
  sessions_total: ['control connections accepted', []],
  connections_refused_total: ['connections refused (too many, in total or for the account)', []],
  logins_total: ['logins that succeeded', []],
  logins_failed_total: ['logins refused, by reason', ['reason']],
  lockouts_total: ['lockouts started after repeated failed logins', []],
  uploads_total: ['uploads by outcome', ['outcome']],
  held_uploads_total: ['temporary uploads held until their rename', []],
  received_bytes_total: ['bytes received in uploads', []],
  transfer_stalls_total: ['transfers that waited too long, by the phase they waited in (pasv, tcp_accept, tls_handshake, after_150)', ['phase']],
};

export class TransferMetrics {
  private readonly counters = new Map<string, Counter>();
  private readonly sessions: Gauge;
  private readonly transfers: Gauge;

  /**
   * @param protocol the series' prefix and the help texts' subject: `ftp` or `sftp`
   * @param registry where the series are served (a private one when none is given)
   */
  constructor(
    readonly protocol: TransferChannel = 'ftp',
    readonly registry = new Registry(),
  ) {
    const registers = [registry];
    const label = protocol.toUpperCase();
    for (const [name, [help, labelNames]] of Object.entries(HELP)) {
      this.counters.set(name, new Counter({ name: `${protocol}_${name}`, help: `${label} ${help}`, labelNames, registers }));
    }
    this.sessions = new Gauge({ name: `${protocol}_sessions_active`, help: `${label} connections open now`, registers });
    this.transfers = new Gauge({ name: `${protocol}_transfers_active`, help: `${label} uploads in progress now`, registers });
  }

  inc(name: TransferCounter, by = 1): void {
    const [metric, labels] = SERIES[name];
    this.counters.get(metric)!.inc(labels, by);
  }

  stall(phase: StallPhase): void {
    this.counters.get('transfer_stalls_total')!.inc({ phase });
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
}

/** What a TransferMetrics of `protocol` has counted in `registry` now (tests compare it before and after). */
export function transferReadings(registry: Registry, protocol: TransferChannel = 'ftp') {
  const read = async (name: string, labels: Readonly<Record<string, string>>) => {
    const metric = registry.getSingleMetric(`${protocol}_${name}`) as Counter | Gauge | undefined;
    const wanted = Object.entries(labels);
    const values = metric ? (await metric.get()).values : [];
    return values.find((v) => wanted.every(([label, value]) => v.labels[label] === value))?.value ?? 0;
  };
  const value = (name: TransferCounter) => read(SERIES[name][0], SERIES[name][1]);
  return {
    value,
    /** every counter, to compare after an action */
    all: async () => Object.fromEntries(await Promise.all(TRANSFER_COUNTERS.map(async (name) => [name, await value(name)]))) as Record<TransferCounter, number>,
    stalls: (phase: StallPhase) => read('transfer_stalls_total', { phase }),
    /** open control connections or running transfers on this node now */
    gauge: (name: 'connections' | 'transfers') => read(name === 'connections' ? 'sessions_active' : 'transfers_active', {}),
  };
}
