// Upload keys (issue 44): keys an owner makes for one machine (an export job, a scanner) that
// open only the upload routes and the FTP/FTPS/SFTP login of one mode. Same strength and storage
// as API keys (api-keys.ts: SHA-256 of 40 random base62 characters), told apart by `_up_`.
import { randomToken } from './ids.ts';
import type { Mode, Scope } from './scope.ts';

export const generateUploadKey = (mode: Mode) => `${mode}_up_${randomToken(40)}`;
const UPLOAD_KEY_PATTERN = /^(live|test)_up_[0-9A-Za-z]{40}$/;
export const uploadKeyMode = (key: string): Mode | undefined => (UPLOAD_KEY_PATTERN.test(key) ? (key.slice(0, 4) as Mode) : undefined);
/** What a page may show of an upload key: its prefix and first and last 4 characters */
export const uploadKeyHint = (key: string) => `${key.slice(0, 12)}...${key.slice(-4)}`;

/** The upload key a request or session came with. */
export interface UploadKeyRef {
  id: string;
  name: string;
  /** CIDR blocks it may be used from; empty: anywhere */
  networks: string[];
}

/** A scope opened by a key: an upload key's scope names the key (and so opens only uploads). */
export interface KeyScope extends Scope {
  readonly uploadKey?: UploadKeyRef;
}

/** How an upload key is shown (never the key itself after it was made). */
export interface UploadKeyView {
  id: string;
  mode: Mode;
  name: string;
  hint: string;
  networks: string[];
  createdAt: string;
  lastUsed: { at: string; address: string | null; channel: string | null } | null;
}

export const MAX_UPLOAD_KEY_NAME = 100;
export const MAX_UPLOAD_KEY_NETWORKS = 20;
