// The HTTP API and the dashboard's listener: address, TLS, public links, limits, idempotency, admin API.
import { Type } from '../typebox.ts';
import { amount, oneOf, setting, text, trustProxy, url, whole, wholeSeconds } from '../setting-types.ts';

export const http = Type.Object(
  {
    host: setting(text('address'), {
      env: 'HOST',
      example: '0.0.0.0',
      doc: 'The address the API listens on. Unset: 127.0.0.1 without TLS_CERT (plain HTTP stays on this machine), 0.0.0.0 with it; opening plain HTTP wider needs a TLS-terminating proxy in front.',
    }),
    port: setting(whole(0, 65535), { env: 'PORT', default: '8080', doc: "The API's port (0: any free port)." }),
    trustProxy: setting(trustProxy(), {
      env: 'TRUST_PROXY',
      default: 'off',
      doc: "Whom X-Forwarded-For/-Proto/-Host are believed from: off, a hop count (1: the one load balancer in front), or the proxies' addresses/CIDRs (10.0.0.5,10.1.0.0/16). Off, a client cannot pick its rate-limit address or the host of _links.",
    }),
    publicUrl: setting(url('http', 'https'), {
      env: 'PUBLIC_URL',
      example: 'https://invoices.example.com',
      doc: "The address people open: the base of every link the service sends or shows for copying (invites, password resets, the admin API's inviteUrl, webhook payloads, the start-up summary), never a request's Host. Unset: the API's own address, allowed only when HOST is loopback: a wider HOST (or TLS_CERT, whose default HOST is 0.0.0.0) without it does not start. An https PUBLIC_URL makes the dashboard's cookies Secure; API answers' _links use it too, else the host the client called.",
    }),
    requestTimeoutMs: setting(whole(100), {
      env: 'REQUEST_TIMEOUT_MS',
      default: '120000',
      doc: 'A request whose headers and body have not all arrived by then is answered 408 (slow clients cannot hold connections open); long enough for a 5 MB PDF in Base64 over a slow line.',
    }),
    tlsCert: setting(text('file'), {
      env: 'TLS_CERT',
      example: '/etc/invoice-intake/tls.crt',
      doc: 'PEM certificate: HTTPS (TLS 1.2+) for the API, FTPS for FTP, STARTTLS for the SMTP receiver; set with TLS_KEY.',
    }),
    tlsKey: setting(text('file'), { env: 'TLS_KEY', example: '/etc/invoice-intake/tls.key', doc: 'The PEM private key of TLS_CERT.' }),
    maxAmountCents: setting(amount(), { env: 'MAX_AMOUNT', default: '9999999.99', doc: 'Above it an amount is refused with 422.' }),
    rateLimitMax: setting(whole(1), {
      env: 'RATE_LIMIT_MAX',
      default: '6000',
      doc: 'API requests per key per RATE_LIMIT_WINDOW_MS, shared across nodes; more are answered 429.',
    }),
    rateLimitWindowMs: setting(wholeSeconds(), {
      env: 'RATE_LIMIT_WINDOW_MS',
      default: '60000',
      doc: "The rate limit's window, in whole seconds (rate-limiter-flexible counts in seconds).",
    }),
    keyCacheMs: setting(whole(0, 60_000), {
      env: 'KEY_CACHE_MS',
      default: '30000',
      doc: 'Per-node cache of API keys (API requests, FTP files) and of the webhook events each account wants (0: off); a rotated key or a changed webhook still counts on every node within 1 s.',
    }),
    idempotencyTtlHours: setting(whole(1, 720), { env: 'IDEMPOTENCY_TTL_HOURS', default: '24', doc: 'How long Idempotency-Key responses are kept.' }),
    idempotencyWaitMs: setting(whole(0, 60_000), {
      env: 'IDEMPOTENCY_WAIT_MS',
      default: '5000',
      doc: 'A request whose Idempotency-Key another running request holds waits this long for its outcome, then 409.',
    }),
    idempotencyPauseAt: setting(oneOf('before-claim', 'after-claim', 'after-effect', 'after-commit'), {
      env: 'IDEMPOTENCY_PAUSE_AT',
      example: 'after-effect',
      doc: 'Fault injection for tests only: a keyed request stops for good at this point (docs/operations.md).',
    }),
    adminToken: setting(text('token'), {
      env: 'ADMIN_TOKEN',
      secret: true,
      doc: "The admin API's and the admin CLI's bearer token. Unset: generated into DATA_DIR/admin-token; `disabled`: the admin API is off.",
    }),
    adminUrl: setting(url('http', 'https'), {
      env: 'ADMIN_URL',
      example: 'http://127.0.0.1:8080',
      doc: "Where `npm run admin` finds the admin API. Unset: this machine's PORT.",
    }),
  },
  { title: 'HTTP API' },
);
