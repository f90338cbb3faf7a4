// A small client for the admin API (DESIGN.md "Admin API"), for the CLI and scripts.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';

export interface AccountView {
  id: string;
  name: string;
  ftpUsername: string;
  importAddresses: { live: string; test: string };
  createdAt: string;
}
export type NewAccount = AccountView & { liveKey: string; testKey: string };

/** The admin API answered with an error; `detail` is its text for people. */
export class AdminApiError extends Error {
  constructor(readonly status: number, readonly detail: string) {
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

  async rotateKey(id: string, mode: 'live' | 'test'): Promise<string> {
    return (await this.call<{ key: string }>('POST', `/admin/accounts/${encodeURIComponent(id)}/keys/${mode}`)).key;
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
          res.on('data', (c) => (text += c));
          res.on('end', () => {
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
