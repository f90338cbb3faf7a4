// The dashboard (docs/dashboard.md): sessions, sign-in throttling, its secrets.
import { Type } from '../typebox.ts';
import { longSecret, setting, text, whole } from '../setting-types.ts';

export const dashboard = Type.Object(
  {
    dashboardIdleMinutes: setting(whole(1, 7 * 24 * 60), {
      env: 'DASHBOARD_IDLE_MINUTES',
      default: '30',
      doc: "A signed-in person's session ends after this long without a request.",
    }),
    dashboardSignInAttempts: setting(whole(1, 1000), {
      env: 'DASHBOARD_SIGNIN_ATTEMPTS',
      default: '5',
      doc: 'Free failed sign-ins per (client address, e-mail); after them each try waits 1 s, 2 s, 4 s, ...',
    }),
    dashboardSignInCeiling: setting(whole(1, 100_000), {
      env: 'DASHBOARD_SIGNIN_CEILING',
      default: '50',
      doc: 'Failures of one e-mail (any address) or one address (any e-mail) after which the delays tighten.',
    }),
    dashboardSignInDelayMs: setting(whole(1, 3_600_000), {
      env: 'DASHBOARD_SIGNIN_DELAY_MS',
      default: '1000',
      doc: 'The first wait after the free failures, doubled by each further one (at most the window).',
    }),
    dashboardSignInWindowMs: setting(whole(1000), { env: 'DASHBOARD_SIGNIN_WINDOW_MS', default: '900000', doc: 'The window the failures are counted in.' }),
    dashboardSecret: setting(text('secret'), {
      env: 'DASHBOARD_SECRET',
      secret: true,
      doc: "Signs the dashboard's CSRF cookie. Unset: a random secret kept in DATA_DIR/dashboard-secret (set it on several API nodes).",
    }),
    secretsKey: setting(longSecret(), {
      env: 'SECRETS_KEY',
      secret: true,
      doc: 'At least 32 random characters: encrypts TOTP keys at rest (AES-256-GCM). Unset: generated into DATA_DIR/secrets-key on the embedded database; with DATABASE_URL set it on every API node: without it two-step sign-in cannot be turned on, and once anyone uses it the api role refuses to start (docs/operations.md).',
    }),
  },
  { title: 'Dashboard' },
);
