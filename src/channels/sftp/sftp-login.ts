// SSH authentication for the SFTP channel: the FTP login (ftpUsername + live or test key as
// password) or a public key registered for the account and mode, behind the login policy FTP
// uses too (transfer-login.ts: the lockout, the failure count and delay, the per-account limit).
import ssh2, { type AuthContext, type AuthenticationType } from 'ssh2';
import type { Logger } from '../../platform/logger.ts';
import { acceptedSignature } from '../../domain/ssh-public-keys.ts';
import type { TransferMetrics } from '../transfer/transfer-metrics.ts';
import { NOT_A_GUESS, type TransferLogins } from '../transfer/transfer-login.ts';
import type { SftpAccounts } from './sftp-ports.ts';
import { acceptKeyQuery } from './ssh2-adapter.ts';
import type { Login, SftpSession } from './sftp-session.ts';

export interface LoginContext {
  accounts: SftpAccounts;
  /** the lockout and the per-account limit, FTP's and SFTP's alike */
  logins: TransferLogins<SftpSession>;
  metrics: TransferMetrics;
  log: Logger;
}

const METHODS: AuthenticationType[] = ['publickey', 'password'];

/** Whether a public-key signature is valid for the presented key blob. */
function signatureValid(ctx: Extract<AuthContext, { method: 'publickey' }>): boolean {
  const parsed = ssh2.utils.parseKey(ctx.key.data);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error || !ctx.signature || !ctx.blob) return false;
  return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
}

/** Decides one authentication request: accepts, asks for the signature, or rejects (the policy: transfer-login.ts). */
export async function authenticate(ctx: AuthContext, session: SftpSession, lc: LoginContext): Promise<void> {
  const { accounts, logins, metrics, log } = lc;
  const at = { session: session.id, address: session.address, username: ctx.username, method: ctx.method };
  const shown = { ...at, username: ctx.username.slice(0, 128) };
  if (ctx.method !== 'password' && ctx.method !== 'publickey') return ctx.reject(METHODS);
  try {
    const verdict = await logins.attempt(at, () => credentialCheck(ctx, session, lc));
    if (verdict.kind === 'not-a-guess') return; // answered by the check
    if (verdict.kind !== 'accepted') return ctx.reject(METHODS);
    const login = verdict.login;
    if (session.closed || !logins.admit(login.scope.accountId, session, at)) return ctx.reject([], false);
    session.login = login;
    if (login.sshKeyId) accounts.publicKeyLogin?.(login.scope, session.address);
    metrics.inc('loginsSucceeded');
    log.info({ ...shown, accountId: login.scope.accountId, mode: login.scope.mode, sshKey: login.sshKeyId }, 'sftp login');
    ctx.accept();
  } catch (err) {
    log.error({ err, session: session.id }, 'sftp login could not be checked');
    ctx.reject([], false);
  }
}

/** SSH's credentials: the FTP password, or a registered key's valid signature; undefined: a wrong one (counted). */
async function credentialCheck(
  ctx: Extract<AuthContext, { method: 'password' | 'publickey' }>,
  session: SftpSession,
  lc: LoginContext,
): Promise<Login | undefined | typeof NOT_A_GUESS> {
  const { accounts, log } = lc;
  const at = { session: session.id, address: session.address, username: ctx.username.slice(0, 128), method: ctx.method };
  if (ctx.method === 'password') {
    if (ctx.password === '') {
      // no password is no guess: clients send an empty one after their keys were refused (curl's
      // libssh2 with an RSA key it signs with SHA-1), and five of those must not lock anyone out
      log.info({ ...at, reason: 'empty password' }, 'sftp login refused (not counted as a failure)');
      ctx.reject(METHODS);
      return NOT_A_GUESS;
    }
    const scope = await accounts.authenticatePassword(ctx.username, ctx.password, session.address);
    const keyStamp = scope && (await accounts.keyStamp(scope));
    return scope && keyStamp ? { scope, username: ctx.username, keyStamp } : undefined;
  }
  // an unknown key or SHA-1 RSA is no failed login: clients offer every key they have in turn
  const keyAt = { ...at, keyType: ctx.key.algo, signature: ctx.hashAlgo ?? null };
  if (!acceptedSignature(ctx.key.algo, ctx.hashAlgo)) {
    const reason =
      ctx.key.algo === 'ssh-rsa'
        ? 'ssh-rsa with SHA-1 signatures is refused: the client must sign with rsa-sha2-256 or rsa-sha2-512'
        : `key type ${ctx.key.algo} is not accepted`;
    log.info({ ...keyAt, reason }, 'sftp key refused');
    ctx.reject(METHODS);
    return NOT_A_GUESS;
  }
  const found = await accounts.authenticatePublicKey(ctx.username, ctx.key.data, session.address);
  if (!found) {
    log.info({ ...keyAt, reason: 'not registered for this user' }, 'sftp key refused');
    ctx.reject(METHODS);
    return NOT_A_GUESS;
  }
  if (!ctx.signature) {
    acceptKeyQuery(ctx); // "this key would do": the client signs next
    return NOT_A_GUESS;
  }
  const valid = signatureValid(ctx);
  if (!valid) log.info({ ...keyAt, reason: 'signature does not verify' }, 'sftp key refused');
  const keyStamp = valid ? await accounts.keyStamp(found.scope) : undefined;
  return keyStamp ? { scope: found.scope, username: ctx.username, keyStamp, sshKeyId: found.keyId } : undefined;
}
