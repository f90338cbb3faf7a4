// The login and session policy FTP and SFTP share (src/channels/transfer/transfer-login.ts), on the
// machine's Redis with a prefix of its own: the lockout check, the failure count and its delay, the
// lock, a success clearing the counts, a check that is no guess, and the per-account limit. Both
// protocols' own tests (ftps-security, sftp-sessions, sftp-limits) drive it through real clients.
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LoginLockout } from '../../src/channels/transfer/login-lockout.ts';
import { BASE_DELAY_MS } from '../../src/channels/transfer/lockout-policy.ts';
import { NOT_A_GUESS, TransferLogins } from '../../src/channels/transfer/transfer-login.ts';
import { transferReadings, TransferMetrics } from '../../src/channels/transfer/transfer-metrics.ts';
import type { TransferChannel } from '../../src/domain/channels.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/platform/logger.ts';

const redis = new Redis('redis://127.0.0.1:6379');
afterAll(() => redis.quit());

function policy(protocol: TransferChannel, maxPerAccount = 2) {
  const lines: { msg: string; [k: string]: unknown }[] = [];
  const log = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  const metrics = new TransferMetrics(protocol);
  const lockout = new LoginLockout(redis, `iitest${randomToken(8)}`, { attempts: 3, lockoutMs: 60_000 });
  return {
    logins: new TransferLogins<string>(protocol, maxPerAccount, { lockout, metrics, log }),
    lines,
    counters: () => transferReadings(metrics.registry, protocol).all(),
  };
}

const at = (username: string, address = '192.0.2.7') => ({ session: randomToken(6), address, username });

describe('the transfer login policy', () => {
  it('counts wrong credentials, delays each refusal more, locks at the limit and refuses even the right one then', async () => {
    const { logins, lines, counters } = policy('sftp');
    const right = () => Promise.resolve('login');
    const wrong = () => Promise.resolve(undefined);
    const started = Date.now();
    expect(await logins.attempt(at('bob'), wrong)).toEqual({ kind: 'failed' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(BASE_DELAY_MS - 5);
    expect(await logins.attempt(at('bob'), wrong)).toEqual({ kind: 'failed' });
    expect(await logins.attempt(at('bob'), wrong)).toEqual({ kind: 'failed' });
    expect(await logins.attempt(at('bob'), right)).toEqual({ kind: 'locked' });
    // the user is locked from any address; another user from another address is not
    expect(await logins.attempt(at('bob', '198.51.100.1'), right)).toEqual({ kind: 'locked' });
    expect(await logins.attempt(at('carol', '198.51.100.1'), right)).toEqual({ kind: 'accepted', login: 'login' });
    expect(await counters()).toMatchObject({ loginsFailed: 3, lockouts: 2, loginsRefusedLockedOut: 2 });
    expect(lines.filter((l) => l.msg === 'sftp login failed').map((l) => l.failures)).toEqual([
      { address: 1, user: 1 },
      { address: 2, user: 2 },
      { address: 3, user: 3 },
    ]);
    expect(
      lines
        .filter((l) => l.msg === 'sftp login locked out after repeated failures')
        .map((l) => l.subject)
        .sort(),
    ).toEqual(['address', 'user']);
  });

  it('clears the counts on a success, and does not count a check that is no guess', async () => {
    const { logins, counters } = policy('ftp');
    for (let i = 0; i < 2; i++) await logins.attempt(at('dave'), () => Promise.resolve(undefined));
    expect(await logins.attempt(at('dave'), () => Promise.resolve(NOT_A_GUESS))).toEqual({ kind: 'not-a-guess' });
    expect(await logins.attempt(at('dave'), () => Promise.resolve(42))).toEqual({ kind: 'accepted', login: 42 });
    // two more failures after the success: still below the limit of 3
    for (let i = 0; i < 2; i++) expect(await logins.attempt(at('dave'), () => Promise.resolve(undefined))).toEqual({ kind: 'failed' });
    expect(await logins.attempt(at('dave'), () => Promise.resolve(1))).toEqual({ kind: 'accepted', login: 1 });
    expect((await counters()).loginsFailed).toBe(4);
  });

  it('gives each account at most its limit of sessions on the node; a closed one frees its place', async () => {
    const { logins, lines, counters } = policy('ftp', 2);
    expect(logins.admit('acc_1', 's1', at('u1'))).toBe(true);
    expect(logins.admit('acc_1', 's2', at('u1'))).toBe(true);
    expect(logins.admit('acc_1', 's3', at('u1'))).toBe(false);
    expect(logins.admit('acc_2', 's4', at('u2'))).toBe(true);
    logins.release('acc_1', 's1');
    logins.release(undefined, 's9'); // a session that never logged in
    expect(logins.admit('acc_1', 's3', at('u1'))).toBe(true);
    expect((await counters()).connectionsRefused).toBe(1);
    expect(lines.find((l) => l.msg === 'ftp login refused: too many connections for the account')).toMatchObject({ accountId: 'acc_1', limit: 2 });
  });

  it('asks Redis nothing it cannot answer: a failing lockout is the protocol\'s "try again later", nothing counted', async () => {
    const gone = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const metrics = new TransferMetrics('ftp');
    const logins = new TransferLogins('ftp', 2, {
      lockout: new LoginLockout(gone, 'x', { attempts: 3, lockoutMs: 60_000 }),
      metrics,
      log: createLogger('silent'),
    });
    await expect(logins.attempt(at('erin'), () => Promise.resolve('x'))).rejects.toThrow();
    expect((await transferReadings(metrics.registry, 'ftp').all()).loginsFailed).toBe(0);
    gone.disconnect();
  });
});
