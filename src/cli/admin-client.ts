// A small client for the admin API (its OpenAPI document: /admin/openapi.json), for the CLI and scripts.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AccountView } from '../domain/models.ts';

export type NewAccount = AccountView & { liveKey: string; testKey: string };
export interface SshKeyView {
  id: string;
  mode: 'live' | 'test';
  type: string;
  fingerprint: string;
  comment: string;
  createdAt: string;
}

export interface TrailEntryView {
  id: string;
  at: string;
  mode: 'live' | 'test' | null;
  actor: { kind: string; id: string | null; label: string };
  address: string | null;
  action: string;
  target: string | null;
}

export interface Paged<T> {
  items: T[];
  /** `from` of the next page, or null on the last */
  next: string | null;
}

export interface AdminImport {
  id: string;
  account: string;
  mode: 'live' | 'test';
  channel: string;
  sender: string;
  filename: string;
  size: number;
  status: string;
  invoice: string | null;
  reason: string | null;
  receivedAt: string;
  updatedAt: string;
}

const query = (o: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams(
    Object.entries(o)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
  return q.size ? `?${q}` : '';
};

/** The admin API answered with an error; `detail` is its text for people. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** The admin API could not be reached at all. */
export class AdminUnreachableError extends Error {}

export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    /** PEM of a CA (or the self-signed certificate) to trust for https */
    private readonly ca?: string,
  ) {}

  createAccount(name: string): Promise<NewAccount> {
    return this.call('POST', '/admin/accounts', { name });
  }

  showAccount(id: string): Promise<AccountView> {
    return this.call('GET', `/admin/accounts/${encodeURIComponent(id)}`);
  }

  listAccounts(opts: { search?: string; from?: string; limit?: number } = {}): Promise<Paged<AccountView>> {
    return this.call('GET', `/admin/accounts${query(opts)}`);
  }

  setDisabled(id: string, disabled: boolean): Promise<AccountView> {
    return this.call('PATCH', `/admin/accounts/${encodeURIComponent(id)}`, { disabled });
  }

  listImports(opts: { status?: string; from?: string; limit?: number } = {}): Promise<Paged<AdminImport>> {
    return this.call('GET', `/admin/imports${query(opts)}`);
  }

  /** The account's trail (who changed what), newest first; the list envelope of GET /admin/accounts/{id}/trail. */
  async trail(id: string, opts: { from?: string } = {}): Promise<Paged<TrailEntryView>> {
    const r = await this.call<{ trail: TrailEntryView[]; links: { next: { href: string } | null } }>(
      'GET',
      `/admin/accounts/${encodeURIComponent(id)}/trail${query(opts)}`,
    );
    return { items: r.trail, next: r.links.next ? new URL(r.links.next.href).searchParams.get('from') : null };
  }

  async rotateKey(id: string, mode: 'live' | 'test'): Promise<string> {
    return (await this.call<{ key: string }>('POST', `/admin/accounts/${encodeURIComponent(id)}/keys/${mode}`)).key;
  }

  addSshKey(id: string, mode: 'live' | 'test', publicKey: string): Promise<SshKeyView> {
    return this.call('POST', `/admin/accounts/${encodeURIComponent(id)}/ssh-keys/${mode}`, { publicKey });
  }

  async listSshKeys(id: string): Promise<SshKeyView[]> {
    return (await this.call<{ sshKeys: SshKeyView[] }>('GET', `/admin/accounts/${encodeURIComponent(id)}/ssh-keys`)).sshKeys;
  }

  removeSshKey(id: string, keyId: string): Promise<void> {
    return this.call('DELETE', `/admin/accounts/${encodeURIComponent(id)}/ssh-keys/${encodeURIComponent(keyId)}`);
  }

  invite(accountId: string, email: string): Promise<{ id: string; email: string; inviteUrl: string }> {
    return this.call('POST', `/admin/accounts/${encodeURIComponent(accountId)}/users`, { email });
  }

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = new URL(path, this.baseUrl.replace(/\/?$/, '/'));
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method,
          headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) },
          timeout: 15_000,
          ...(this.ca ? { ca: this.ca } : {}),
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            // biome-ignore lint/suspicious/noExplicitAny: the admin API answers JSON of any shape; it is printed, not read
            let parsed: any;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(parsed as T);
            else reject(new AdminApiError(status, parsed?.detail ?? (text.slice(0, 200) || `HTTP ${status}`)));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
      req.on('error', (err) => reject(new AdminUnreachableError(`Cannot reach the admin API at ${this.baseUrl}: ${err.message}`)));
      req.end(payload);
    });
  }
}

/** The CA to trust for an https admin URL: the service's own certificate, when it is on this machine. */
export function readCa(certFile: string | undefined): string | undefined {
  if (!certFile) return undefined;
  try {
    return fs.readFileSync(certFile, 'utf8');
  } catch {
    return undefined;
  }
}
