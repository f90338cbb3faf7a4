// One SSH connection's state: who logged in (and with what, to notice a rotated key), its flat
// directory, its open handles, and the idle timer.
import type { Scope } from '../../domain/scope.ts';
import type { DirectoryEntry } from '../transfer/directory-listing.ts';
import { normalizeAddress } from '../transfer/lockout-policy.ts';
import type { UploadBuffer } from './upload-buffer.ts';
import type { UploadDirectory } from './upload-directory.ts';

export type OpenHandle =
  | { kind: 'upload'; path: string; buffer: UploadBuffer }
  | { kind: 'read'; entry: DirectoryEntry }
  | { kind: 'dir'; listed: boolean };

export interface Login {
  scope: Scope;
  username: string;
  /** the API key's stamp at login: another stamp later means the key was rotated */
  keyStamp: string;
  /** the SSH key that logged in, when it was a public-key login */
  sshKeyId?: string;
}

export class SftpSession {
  readonly address: string;
  login?: Login;
  dir?: UploadDirectory;
  readonly handles = new Map<string, OpenHandle>();
  /** uploads being staged (their close not answered yet): shutdown waits for them */
  closing = 0;
  closed = false;
  private nextHandle = 0;
  private lastActivity = Date.now();
  private idleTimer?: NodeJS.Timeout;

  constructor(
    /** a short id for logs and the pipeline's trace id */
    readonly id: string,
    ip: string | undefined,
    private readonly idleTimeoutMs: number,
    private readonly onIdle: (s: SftpSession) => void,
  ) {
    this.address = normalizeAddress(ip);
  }

  get traceId(): string {
    return `sftp-${this.id}`;
  }

  /** Whether an upload is open or being staged (graceful shutdown waits for these). */
  get busy(): boolean {
    return this.closing > 0 || [...this.handles.values()].some((handle) => handle.kind === 'upload');
  }

  open(handle: OpenHandle): Buffer {
    const id = Buffer.alloc(4);
    id.writeUInt32BE(this.nextHandle++ >>> 0);
    this.handles.set(id.toString('hex'), handle);
    return id;
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Idle: no request for idleTimeoutMs (a session not logged in gets at most a minute). */
  armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    if (this.closed) return;
    const limit = this.login ? this.idleTimeoutMs : Math.min(this.idleTimeoutMs, 60_000);
    this.idleTimer = setTimeout(() => {
      if (this.closed) return;
      if (Date.now() - this.lastActivity < limit) return this.armIdleTimer();
      this.onIdle(this);
    }, Math.max(this.lastActivity + limit - Date.now(), 10));
    this.idleTimer.unref();
  }

  /** The connection is gone: open uploads are dropped (held temporary uploads wait for a rename). */
  end(): { uploads: string[] } {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const uploads = [...this.handles.values()].flatMap((handle) => (handle.kind === 'upload' ? [handle.path] : []));
    this.handles.clear();
    return { uploads };
  }
}
