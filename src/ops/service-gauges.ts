// Gauges of the process's own health, read at scrape time, for alerts that must not depend on
// someone calling /readyz: each readiness check's answer and its time (the database's `select 1`
// and Redis's PING are the dependencies' ping latency), whether each intake listener listens, the
// free space of DATA_DIR, and when the configured TLS certificate expires.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { Gauge, type Registry } from 'prom-client';
import { runReadinessChecks, type ReadinessCheck, type ReadinessResult } from './readiness.ts';

/**
 * Readiness checks that stand for an intake listener, by the channel they serve: a role that
 * listens registers its check under one of these names (the SMTP receiver under `smtp`), and
 * `intake_listener_up{channel, listener}` follows it.
 */
const LISTENER_CHECKS: Readonly<Record<string, string>> = { ftp: 'ftp', 'ftps-implicit': 'ftp', sftp: 'sftp', smtp: 'smtp', smtps: 'smtp' };

/** The readiness gauges and the listener gauge, from one run of the checks per scrape. */
export function observeReadiness(registry: Registry, checks: ReadonlyMap<string, ReadinessCheck>): void {
  let reading: Promise<ReadinessResult[]> | undefined;
  // the gauges of one scrape share one run
  // (prom-client collects every metric at once: the first collect starts the run, the others join it)
  const once = () => (reading ??= runReadinessChecks(checks).finally(() => (reading = undefined)));
  const registers = [registry];
  new Gauge({
    name: 'invoice_intake_ready',
    help: 'Whether every readiness check passes (1) or not (0): what GET /readyz answers',
    registers,
    async collect() {
      this.set((await once()).every((r) => r.ok) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'invoice_intake_readiness_check_ok',
    help: 'Each readiness check of GET /readyz: 1 passing, 0 failing',
    labelNames: ['check'],
    registers,
    async collect() {
      this.reset();
      for (const r of await once()) this.set({ check: r.name }, r.ok ? 1 : 0);
    },
  });
  new Gauge({
    name: 'invoice_intake_readiness_check_duration_seconds',
    help: 'How long each readiness check took (database: select 1, redis: PING; a check that times out counts its 2 s)',
    labelNames: ['check'],
    registers,
    async collect() {
      this.reset();
      for (const r of await once()) this.set({ check: r.name }, r.seconds);
    },
  });
  new Gauge({
    name: 'intake_listener_up',
    help: 'Whether an intake listener of this process accepts connections (1) or not (0: starting, refused to start, draining)',
    labelNames: ['channel', 'listener'],
    registers,
    async collect() {
      this.reset();
      for (const r of await once()) if (r.name in LISTENER_CHECKS) this.set({ channel: LISTENER_CHECKS[r.name], listener: r.name }, r.ok ? 1 : 0);
    },
  });
}

/** Free and total bytes of the file system that holds DATA_DIR (the embedded database, the private Redis, keys). */
export function observeDataDir(registry: Registry, dir: string): void {
  let reading: Promise<fs.StatsFs | undefined> | undefined;
  const once = () =>
    (reading ??= fs.promises
      .statfs(dir)
      .catch(() => undefined)
      .finally(() => (reading = undefined)));
  const gauge = (name: string, help: string, pick: (s: fs.StatsFs) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['path'],
      registers: [registry],
      async collect() {
        this.reset();
        // the directory gone: leave the series out rather than fail the whole scrape
        const s = await once();
        if (s) this.set({ path: dir }, pick(s));
      },
    });
  gauge(
    'invoice_intake_data_dir_free_bytes',
    'Bytes of the DATA_DIR file system that this process may still write (available to unprivileged users)',
    (s) => s.bavail * s.bsize,
  );
  gauge('invoice_intake_data_dir_size_bytes', 'Size in bytes of the file system that holds DATA_DIR', (s) => s.blocks * s.bsize);
}

/**
 * When the certificate in `certFile` (TLS_CERT: the API's HTTPS, FTPS, ...) stops being valid.
 * Read once, at start: that is the certificate this process serves until it is restarted.
 */
export function observeCertificate(registry: Registry, certFile: string | undefined): void {
  if (!certFile) return;
  const gauge = new Gauge({
    name: 'invoice_intake_tls_certificate_expiry_timestamp_seconds',
    help: 'Unix time at which the TLS_CERT certificate this process loaded expires (notAfter)',
    labelNames: ['subject'],
    registers: [registry],
  });
  try {
    const cert = new X509Certificate(fs.readFileSync(certFile));
    gauge.set({ subject: cert.subject.replace(/\n/g, ', ') }, Date.parse(cert.validTo) / 1000);
  } catch {
    // unreadable: the listeners that need it refuse to start and say why; no series here
  }
}
