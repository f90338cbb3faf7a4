// What FTP (ftp-srv) and SFTP (ssh2) servers share: their common options, and their life as
// readiness and stop see it: listening, then draining (refusing new connections while uploads in
// flight finish and are staged), then closed.
import { setTimeout as sleep } from 'node:timers/promises';

/** What an FTP and an SFTP server are both configured with. */
export interface TransferServerOptions {
  host: string;
  port: number;
  idleTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerAccount: number;
  listLimit: number;
  maxUploadBytes?: number;
  /** ZIP archives' cap (ZIP_MAX_TOTAL_BYTES); unset: the PDF cap */
  maxArchiveBytes?: number;
  /** temporary uploads (x.pdf.filepart) one account-and-mode may have waiting for their rename */
  maxHeldPerAccount?: number;
  /** how long a temporary upload waits for its rename (any session of the account and mode) */
  tempUploadHoldMs: number;
}

export class ListenerState {
  listening = false;
  draining = false;

  /** Whether the server accepts connections (readiness). */
  get ready(): boolean {
    return this.listening && !this.draining;
  }

  /** Starts draining; false when a stop is already under way. */
  beginDrain(): boolean {
    if (this.draining) return false;
    this.draining = true;
    return true;
  }

  /** Waits until no upload is busy or graceMs has passed. */
  async uploadsSettled(busy: () => boolean, graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && busy()) await sleep(50);
  }
}
