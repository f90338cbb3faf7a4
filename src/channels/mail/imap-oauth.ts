// OAuth 2.0 access tokens for the import mailbox (IMAP_AUTH=xoauth2): Microsoft 365 with the
// client-credentials flow (a client secret, or a certificate: RFC 7523 client assertion), Gmail
// (or Microsoft delegated access) with a refresh token. A token is used until shortly before it
// expires, then fetched anew; after the server refused one (NO [AUTHENTICATIONFAILED]) the caller
// invalidates it. Tokens, secrets and refresh tokens are never logged nor put in an error.
import { createHash, createPrivateKey, randomUUID, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from '../../platform/logger.ts';

export interface ImapOAuthSettings {
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  /** PEM certificate and private key (text), for a client assertion instead of a secret */
  clientCertificate?: { cert: string; key: string };
  /** set: the refresh-token flow; unset: client credentials */
  refreshToken?: string;
  scope?: string;
}

export const MICROSOFT_IMAP_SCOPE = 'https://outlook.office365.com/.default';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const microsoftTokenUrl = (tenant: string) => `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;

/** PEM text as given, or read from the file it names. */
export const pemText = (value: string) => (value.includes('-----BEGIN') ? value : readFileSync(value, 'utf8'));

const base64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A signed JWT that proves the client holds the certificate's key (Microsoft's certificate credential). */
function clientAssertion(s: { tokenUrl: string; clientId: string; cert: string; key: string }, now = Date.now()): string {
  const der = new X509Certificate(s.cert).raw;
  const header = { alg: 'RS256', typ: 'JWT', x5t: base64url(createHash('sha1').update(der).digest()) };
  const iat = Math.floor(now / 1000);
  const claims = { aud: s.tokenUrl, iss: s.clientId, sub: s.clientId, jti: randomUUID(), nbf: iat, iat, exp: iat + 600 };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url(sign('sha256', Buffer.from(input), createPrivateKey(s.key)))}`;
}

export class OAuthTokenSource {
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private refreshToken: string | undefined;

  constructor(
    private readonly s: ImapOAuthSettings,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.refreshToken = s.refreshToken;
  }

  /** A token valid for a while yet: the cached one, or a new one from the token endpoint. */
  accessToken(): Promise<string> {
    const c = this.current;
    if (c && this.now() < c.expiresAt) return Promise.resolve(c.token);
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** The server refused the token (revoked, or its lifetime cut short): the next call fetches one. */
  invalidate(): void {
    this.current = undefined;
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({ client_id: this.s.clientId });
    if (this.refreshToken) {
      form.set('grant_type', 'refresh_token');
      form.set('refresh_token', this.refreshToken);
    } else form.set('grant_type', 'client_credentials');
    if (this.s.scope) form.set('scope', this.s.scope);
    if (this.s.clientCertificate) {
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      form.set('client_assertion', clientAssertion({ tokenUrl: this.s.tokenUrl, clientId: this.s.clientId, ...this.s.clientCertificate }, this.now()));
    } else if (this.s.clientSecret) form.set('client_secret', this.s.clientSecret);
    const where = new URL(this.s.tokenUrl).host;
    let res: Response;
    try {
      res = await fetch(this.s.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new Error(`OAuth token request to ${where} failed: ${(e as Error).message}`);
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || typeof body.access_token !== 'string') {
      // error and error_description are the provider's words (AADSTS codes, invalid_grant): no secrets
      const why = [body.error, body.error_description]
        .filter((x) => typeof x === 'string')
        .join(': ')
        .slice(0, 400);
      throw new Error(`OAuth token request to ${where} was refused (HTTP ${res.status}${why ? `, ${why}` : ''})`);
    }
    const lifetimeMs = Math.max(1, Number(body.expires_in) || 3600) * 1000;
    // used until shortly before it expires: a minute early, or a quarter of a short lifetime
    this.current = { token: body.access_token, expiresAt: this.now() + lifetimeMs - Math.min(60_000, lifetimeMs / 4) };
    // a provider that rotates refresh tokens (Microsoft) sends the next one along
    if (typeof body.refresh_token === 'string' && this.refreshToken) this.refreshToken = body.refresh_token;
    this.log.info(
      { tokenEndpoint: where, expiresInSeconds: Math.round(lifetimeMs / 1000), flow: this.refreshToken ? 'refresh_token' : 'client_credentials' },
      'IMAP OAuth access token obtained',
    );
    return body.access_token;
  }
}

/** Whether an IMAP login failed because the server refused the credentials (NO [AUTHENTICATIONFAILED]). */
export function isAuthenticationFailure(err: unknown): boolean {
  // biome-ignore lint/suspicious/noExplicitAny: walks an error chain of unknown shape (cause, code, response)
  for (let e = err as any, depth = 0; e && depth < 4; e = e.cause, depth++) {
    if (e.authenticationFailed === true || e.serverResponseCode === 'AUTHENTICATIONFAILED') return true;
  }
  return false;
}
