// SSH authentication for the SFTP channel: the FTP login (ftpUsername + live or test key as
// password) or a public key registered for the account and mode, behind the lockout FTP uses
// (failed logins counted per address and per user in Redis, shared by every FTP and SFTP node).
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2, { type AuthContext, type AuthenticationType } from 'ssh2';
import type { Logger } from '../../platform/logger.ts';
import { acceptedSignature } from '../../domain/ssh-public-keys.ts';
import type { TransferMetrics } from '../transfer/transfer-metrics.ts';
import { failureDelayMs } from '../transfer/lockout-policy.ts';
import type { LoginLockout } from '../transfer/login-lockout.ts';
import type { SftpAccounts } from './sftp-ports.ts';
import { acceptKeyQuery } from './ssh2-adapter.ts';
import type { Login, SftpSession } from './sftp-session.ts';

export interface LoginContext {
  accounts: SftpAccounts;
  lockout: Pick<LoginLockout, 'locked' | 'recordFailure' | 'recordSuccess' | 'settings'>;
  metrics: TransferMetrics;
  log: Logger;
  /** a last word before accepting (per-account connection limit); a string refuses with that reason */
  admit(session: SftpSession, login: Login): string | undefined;
}

const METHODS: AuthenticationType[] = ['publickey', 'password'];

/** Whether a public-key signature is valid for the presented key blob. */
function signatureValid(ctx: Extract<AuthContext, { method: 'publickey' }>): boolean {
  const parsed = ssh2.utils.parseKey(ctx.key.data);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error || !ctx.signature || !ctx.blob) return false;
  return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
}

/** Decides one authentication request: accepts, asks for the signature, or rejects. */
export async function authenticate(ctx: AuthContext, session: SftpSession, lc: LoginContext): Promise<void> {
  const { accounts, lockout, metrics, log } = lc;
  const user = ctx.username.slice(0, 128);
  const at = { session: session.id, address: session.address, username: user, method: ctx.method };
  if (ctx.method !== 'password' && ctx.method !== 'publickey') return ctx.reject(METHODS);
  try {
    const locked = await lockout.locked(session.address, ctx.username);
    if (locked) {
      metrics.inc('loginsRefusedLockedOut');
      log.warn({ ...at, subject: locked }, 'sftp login refused: locked out');
      return ctx.reject(METHODS);
    }
    let login: Login | undefined;
    if (ctx.method === 'password' && ctx.password === '') {
      // no password is no guess: clients send an empty one after their keys were refused (curl's
      // libssh2 with an RSA key it signs with SHA-1), and five of those must not lock anyone out
      log.info({ ...at, reason: 'empty password' }, 'sftp login refused (not counted as a failure)');
      return ctx.reject(METHODS);
    }
    if (ctx.method === 'password') {
      const scope = await accounts.authenticatePassword(ctx.username, ctx.password, session.address);
      const keyStamp = scope && (await accounts.keyStamp(scope));
      if (scope && keyStamp) login = { scope, username: ctx.username, keyStamp };
    } else {
      // an unknown key or SHA-1 RSA is no failed login: clients offer every key they have in turn
      const keyAt = { ...at, keyType: ctx.key.algo, signature: ctx.hashAlgo ?? null };
      if (!acceptedSignature(ctx.key.algo, ctx.hashAlgo)) {
        const reason = ctx.key.algo === 'ssh-rsa' ? 'ssh-rsa with SHA-1 signatures is refused: the client must sign with rsa-sha2-256 or rsa-sha2-512' : `key type ${ctx.key.algo} is not accepted`;
        log.info({ ...keyAt, reason }, 'sftp key refused');
        return ctx.reject(METHODS);
      }
      const found = await accounts.authenticatePublicKey(ctx.username, ctx.key.data);
      if (!found) {
        log.info({ ...keyAt, reason: 'not registered for this user' }, 'sftp key refused');
        return ctx.reject(METHODS);
      }
      if (!ctx.signature) return acceptKeyQuery(ctx); // "this key would do": the client signs next
      const valid = signatureValid(ctx);
      if (!valid) log.info({ ...keyAt, reason: 'signature does not verify' }, 'sftp key refused');
      const keyStamp = valid ? await accounts.keyStamp(found.scope) : undefined;
      if (keyStamp) login = { scope: found.scope, username: ctx.username, keyStamp, sshKeyId: found.keyId };
    }
    if (!login) {
      metrics.inc('loginsFailed');
      const { counts, locked: nowLocked } = await lockout.recordFailure(session.address, ctx.username);
      log.info({ ...at, failures: counts }, 'sftp login failed');
      for (const subject of nowLocked) {
        log.warn({ ...at, subject, lockoutMs: lockout.settings.lockoutMs }, 'sftp login locked out after repeated failures');
        metrics.inc('lockouts');
      }
      await sleep(failureDelayMs(Math.max(counts.address, counts.user)));
      return ctx.reject(METHODS);
    }
    await lockout.recordSuccess(session.address, ctx.username);
    const refusal = lc.admit(session, login);
    if (refusal) {
      metrics.inc('connectionsRefused');
      log.warn({ ...at, accountId: login.scope.accountId, reason: refusal }, 'sftp login refused');
      return ctx.reject([], false);
    }
    session.login = login;
    metrics.inc('loginsSucceeded');
    log.info({ ...at, accountId: login.scope.accountId, mode: login.scope.mode, sshKey: login.sshKeyId }, 'sftp login');
    ctx.accept();
  } catch (err) {
    log.error({ err, session: session.id }, 'sftp login could not be checked');
    ctx.reject([], false);
  }
}
