import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretEnvNames } from '../../src/config/config.ts';
import { thrown } from '../helpers/thrown.ts';

const problems = (env: Record<string, string>) => thrown(() => loadConfig(env), ConfigError);

describe('loadConfig', () => {
  it('has working defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      ftpPort: 2121,
      dataDir: './data',
      redisUrl: 'redis://127.0.0.1:6379',
      databaseUrl: undefined,
      maxAmountCents: 999_999_999,
      rateLimitMax: 6000,
      testDataRetentionDays: 30,
      idempotencyTtlHours: 24,
      roles: ['api', 'ftp', 'sftp', 'mail', 'smtp', 'worker'],
      logLevel: 'info',
    });
  });

  it('reads and converts values', () => {
    const c = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u@h/db',
      MAX_AMOUNT: '500.50',
      ROLES: 'api, worker,api',
      FTP_PASV_RANGE: '40000-40010',
      FTP_ALLOW_PLAIN: 'yes',
    });
    expect(c).toMatchObject({
      port: 9000,
      databaseUrl: 'postgres://u@h/db',
      maxAmountCents: 50050,
      roles: ['api', 'worker'],
      ftpPasvRange: [40000, 40010],
      ftpAllowPlain: true,
    });
  });

  it('lists every problem at once, each naming its variable', () => {
    const e = problems({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      REDIS_URL: 'not a url',
      LOG_LEVEL: 'loud',
      MAX_AMOUNT: '1.234',
      ROLES: 'api,cook',
      RATE_LIMIT_MAX: '0',
      FTP_PASV_RANGE: '9-1',
    });
    expect(e.problems).toHaveLength(8);
    expect(e.problems).toEqual(
      expect.arrayContaining([
        'PORT must be a whole number, got "eighty"',
        'DATABASE_URL must use postgres or postgresql, got mysql:',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
        'RATE_LIMIT_MAX must be between 1 and 9007199254740991, got 0',
        expect.stringMatching(/^REDIS_URL must be a URL/),
        expect.stringMatching(/^MAX_AMOUNT must be an amount/),
        expect.stringMatching(/^ROLES must list roles among api, ftp, sftp, mail, smtp, worker/),
        expect.stringMatching(/^FTP_PASV_RANGE must be a port range/),
      ]),
    );
    expect(e.message.split('\n')[0]).toBe('Invalid configuration:');
    expect(e.message.split('\n')).toHaveLength(9);
  });

  it('turns each matching fallback on by default, and off one by one', () => {
    expect(loadConfig({})).toMatchObject({ intakeMatchEinvoice: true, intakeMatchSubject: true, intakeMatchNameToken: true });
    expect(loadConfig({ INTAKE_MATCH_SUBJECT: 'false' })).toMatchObject({ intakeMatchEinvoice: true, intakeMatchSubject: false, intakeMatchNameToken: true });
  });

  it('lets the heap grow 100 % past its live size by default; 0 leaves V8 its own factor', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(100);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(problems({ HEAP_GROWING_PERCENT: '1000' }).problems).toEqual(['HEAP_GROWING_PERCENT must be between 0 and 400, got 1000']);
  });

  it('takes the rate limit window in whole seconds (rate-limiter-flexible counts in seconds)', () => {
    expect(loadConfig({ RATE_LIMIT_WINDOW_MS: '2000' }).rateLimitWindowMs).toBe(2000);
    expect(problems({ RATE_LIMIT_WINDOW_MS: '1500' }).problems).toEqual(['RATE_LIMIT_WINDOW_MS must be whole seconds (a multiple of 1000), got 1500']);
    expect(problems({ RATE_LIMIT_WINDOW_MS: '500' }).problems).toEqual(['RATE_LIMIT_WINDOW_MS must be between 1000 and 9007199254740991, got 500']);
  });

  it('checks settings that belong together', () => {
    expect(problems({ TLS_CERT: '/x.crt', PUBLIC_URL: 'https://i.example' }).problems).toEqual(['TLS_CERT and TLS_KEY must be set together']);
    expect(problems({ FTP_REQUIRE_TLS: 'true' }).problems).toEqual(['FTP_REQUIRE_TLS=true needs TLS_CERT and TLS_KEY']);
    // a temporary upload waits in the store unreferenced: the sweep's grace must outlast the hold
    expect(problems({ TRANSFER_TEMP_UPLOAD_HOLD_MS: '3600000', DOCUMENT_SWEEP_GRACE_HOURS: '1' }).problems).toEqual([
      expect.stringMatching(/^TRANSFER_TEMP_UPLOAD_HOLD_MS must be shorter than DOCUMENT_SWEEP_GRACE_HOURS/),
    ]);
    expect(loadConfig({ TRANSFER_TEMP_UPLOAD_HOLD_MS: '3599999', DOCUMENT_SWEEP_GRACE_HOURS: '1' }).transferTempUploadHoldMs).toBe(3_599_999);
  });

  it("links: PUBLIC_URL, else the API's own address, which must then be loopback (start-up refuses otherwise)", () => {
    expect(loadConfig({}).links.base).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).links.base).toBe('http://[::1]:9000');
    expect(loadConfig({ HOST: 'localhost', TLS_CERT: '/c.pem', TLS_KEY: '/k.pem' }).links).toMatchObject({ base: 'https://localhost:8080', https: true });
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://invoices.example.com/' }).links).toMatchObject({
      base: 'https://invoices.example.com',
      https: true,
      configured: true,
    });
    for (const env of [{ HOST: '0.0.0.0' }, { HOST: '192.0.2.10' }, { TLS_CERT: '/c.pem', TLS_KEY: '/k.pem' }] as Record<string, string>[]) {
      expect(problems(env).problems).toEqual([
        expect.stringMatching(/^PUBLIC_URL must be set when the API listens beyond this machine \(HOST=[\d.]+\): .*never from a request's Host header/),
      ]);
    }
    // only the API sends links: a worker with HOST for its OPS_PORT, and the admin CLI (serving nothing), need none
    expect(loadConfig({ HOST: '0.0.0.0', ROLES: 'worker' }).links.base).toBe('http://0.0.0.0:8080');
    expect(loadConfig({ HOST: '0.0.0.0' }, {}, { serving: false }).host).toBe('0.0.0.0');
    // PORT=0: the API names the port it got once it listens; a configured PUBLIC_URL stays
    const picked = loadConfig({ PORT: '0' }).links;
    picked.listening('http://127.0.0.1:41234');
    expect(picked.base).toBe('http://127.0.0.1:41234');
    const fixed = loadConfig({ PUBLIC_URL: 'https://i.example' }).links;
    fixed.listening('http://127.0.0.1:41234');
    expect(fixed.base).toBe('https://i.example');
  });

  it('never echoes a secret value in a problem', () => {
    const e = problems({ DATABASE_URL: 'http://user:s3cret-pass@db/x', PORT: '-5' });
    expect(e.message).not.toContain('s3cret-pass');
    expect(secretEnvNames).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'IMAP_URL', 'SMTP_URL']));
  });
});

describe('the config schema', () => {
  it('gives every kind of bad value a message naming the variable and what it must be', () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: '1.5' }, 'PORT must be a whole number, got "1.5"'],
      [{ PORT: '0x10' }, 'PORT must be a whole number, got "0x10"'],
      [{ PORT: '70000' }, 'PORT must be between 0 and 65535, got 70000'],
      [{ FTP_ALLOW_PLAIN: 'maybe' }, 'FTP_ALLOW_PLAIN must be true or false, got "maybe"'],
      [{ DATABASE_POOLER: 'session' }, 'DATABASE_POOLER must be one of none, transaction, got "session"'],
      [{ ROLES: ',' }, 'ROLES must list roles among api, ftp, sftp, mail, smtp, worker, got ","'],
      [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL must use http or https, got ftp:'],
      [{ REDIS_SENTINELS: 'a:1,b' }, 'REDIS_SENTINELS must be host:port pairs separated by commas, got "b"'],
      [{ SMTP_LISTEN: 'nowhere' }, 'SMTP_LISTEN must be host:port or off, got "nowhere"'],
      [{ TRUST_PROXY: '10.0.0.300' }, expect.stringMatching(/^TRUST_PROXY must be off, a hop count, or the load balancers' addresses/) as unknown as string],
      [{ SECRETS_KEY: 'short-secret' }, 'SECRETS_KEY must be at least 32 random characters (e.g. openssl rand -base64 32)'],
      [{ FTP_LOCKOUT_ATTEMPTS: '0' }, 'FTP_LOCKOUT_ATTEMPTS must be between 1 and 9007199254740991, got 0'], // an alias's problem names the alias
    ];
    for (const [env, message] of cases) expect(problems(env).problems, JSON.stringify(env)).toEqual([message]);
  });

  it('reads each value as it is written: no number from "", "1.5" or "1e3"; an empty value is unset', () => {
    expect(loadConfig({ PORT: '', FTP_ALLOW_PLAIN: '' })).toMatchObject({ port: 8080, ftpAllowPlain: false });
    expect(problems({ INTAKE_CONCURRENCY: '1e3' }).problems).toEqual(['INTAKE_CONCURRENCY must be a whole number, got "1e3"']);
    expect(loadConfig({ FTP_REQUIRE_TLS: 'off', SMTP_LISTEN: 'off', TRUST_PROXY: '2' })).toMatchObject({
      ftpRequireTls: false,
      smtpListen: 'off',
      trustProxy: 2,
    });
  });

  it("never shows a secret setting's value, whatever its kind", () => {
    const e = problems({ SECRETS_KEY: 'tiny-but-secret', IMAP_URL: 'imap//u:hunter2@h', SMTP_URL: 'http://u:hunter2@h' });
    expect(e.problems).toHaveLength(3);
    expect(e.message).not.toMatch(/tiny-but-secret|hunter2/);
  });

  it('reads the transfer settings under their old FTP_ names too; the TRANSFER_ name wins', () => {
    const old = {
      FTP_LOCKOUT_ATTEMPTS: '3',
      FTP_LOCKOUT_MS: '60000',
      FTP_MAX_CONNECTIONS_PER_ACCOUNT: '2',
      FTP_LIST_LIMIT: '10',
      FTP_TEMP_UPLOAD_HOLD_MS: '2000',
    };
    expect(loadConfig(old)).toMatchObject({
      transferLockoutAttempts: 3,
      transferLockoutMs: 60_000,
      transferMaxConnectionsPerAccount: 2,
      transferListLimit: 10,
      transferTempUploadHoldMs: 2000,
    });
    expect(loadConfig({ ...old, TRANSFER_LOCKOUT_ATTEMPTS: '7', TRANSFER_LIST_LIMIT: '20' })).toMatchObject({
      transferLockoutAttempts: 7,
      transferListLimit: 20,
      transferMaxConnectionsPerAccount: 2,
    });
    expect(loadConfig({})).toMatchObject({
      transferLockoutAttempts: 5,
      transferLockoutMs: 900_000,
      transferMaxConnectionsPerAccount: 16,
      transferListLimit: 200,
      transferTempUploadHoldMs: 600_000,
    });
  });
});
