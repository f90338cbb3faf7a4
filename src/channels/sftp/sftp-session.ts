// One SSH connection's state: who logged in (and with what, to notice a rotated key), its flat
// directory, its open handles, and the idle timer.
import type { Scope } from '../../domain/scope.ts';
import type { DirectoryEntry } from '../transfer/directory-listing.ts';
import { IdleTimer } from '../transfer/idle-timer.ts';
import { normalizeAddress } from '../transfer/lockout-policy.ts';
import type { UploadHandle } from './sftp-uploads.ts';
import type { TransferDirectory } from '../transfer/transfer-directory.ts';

export type OpenHandle = UploadHandle | { kind: 'read'; entry: DirectoryEntry } | { kind: 'dir'; listed: boolean };

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
  dir?: TransferDirectory;
  readonly handles = new Map<string, OpenHandle>();
  /** uploads being staged (their close not answered yet): shutdown waits for them */
  closing = 0;
  closed = false;
  private nextHandle = 0;
  /** idle: no command (FTP) or request (SFTP) for the idle time-out, before login at most a minute (transfer/idle-timer.ts) */
  readonly idle: IdleTimer;

  constructor(
    /** a short id for logs and the pipeline's trace id */
    readonly id: string,
    ip: string | undefined,
    idleTimeoutMs: number,
    onIdle: (s: SftpSession) => void,
  ) {
    this.address = normalizeAddress(ip);
    this.idle = new IdleTimer(
      idleTimeoutMs,
      () => ({ loggedIn: Boolean(this.login), closed: this.closed }),
      () => onIdle(this),
    );
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

  /**
   * The connection is gone: open uploads are dropped (held temporary uploads wait for a rename);
   * one streaming into the store is cut off there, so its put keeps nothing.
   */
  end(): { uploads: string[] } {
    this.closed = true;
    this.idle.stop();
    const uploads = [...this.handles.values()].flatMap((handle) => (handle.kind === 'upload' ? [handle.path] : []));
    for (const handle of this.handles.values()) if (handle.kind === 'upload') handle.writes.fail(new Error('the client left before closing the file'));
    this.handles.clear();
    return { uploads };
  }
}
