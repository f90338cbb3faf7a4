// The address people and other systems reach the service at. Every link the service sends by
// mail or shows for copying (invites, password resets, the admin API's inviteUrl, webhook
// payloads, the start-up summary) is built on it, never on a request's Host header: a forged
// Host would otherwise put an attacker's address in front of a victim's reset token.
// PUBLIC_URL names it; unset, it is the API's own address, which is allowed only on loopback.

export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');

interface Listening {
  publicUrl?: string;
  host: string;
  port: number;
  tlsCert?: string;
  roles: readonly string[];
}

/** The start-up rule: an API that listens beyond this machine needs PUBLIC_URL. */
export function publicUrlProblems(c: Listening): string[] {
  if (c.publicUrl || !c.roles?.includes('api') || isLoopback(c.host)) return []; // roles unreadable: said already
  return [
    `PUBLIC_URL must be set when the API listens beyond this machine (HOST=${c.host}): the links the service e-mails and shows (invites, password resets, webhook payloads) are built from it, never from a request's Host header. Set it to the address people open, e.g. PUBLIC_URL=https://invoices.example.com`,
  ];
}

/** The base of the links the service sends (no trailing slash). Shared by reference, so it follows the API's real port. */
export class PublicLinks {
  #base: string;
  /** PUBLIC_URL was set (the base never changes) */
  readonly configured: boolean;

  constructor(c: Listening) {
    this.configured = Boolean(c.publicUrl);
    const host = c.host.includes(':') ? `[${c.host}]` : c.host;
    this.#base = (c.publicUrl ?? `${c.tlsCert ? 'https' : 'http'}://${host}:${c.port}`).replace(/\/+$/, '');
  }

  get base(): string {
    return this.#base;
  }

  /** Whether links and the session cookie are https (the cookie is then always Secure). */
  get https(): boolean {
    return this.#base.startsWith('https:');
  }

  /** The API listens at `url` (PORT=0 picks a port): without PUBLIC_URL, links follow it. */
  listening(url: string): void {
    if (!this.configured) this.#base = url.replace(/\/+$/, '');
  }
}
