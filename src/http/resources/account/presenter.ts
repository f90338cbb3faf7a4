// The account resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { HttpDeps } from '../../http-deps.ts';
import type { Scope } from '../../../domain/scope.ts';
import type { SenderPolicy } from '../../../domain/sender-policy.ts';

/** The account's connection view for this scope; `requestHost` names the host when none is configured. */
export async function accountDetails(c: HttpDeps, scope: Scope, requestHost: string) {
  const account = await c.accounts.get(scope.accountId);
  const { ftp, sftp } = c.connections();
  return {
    resource: 'account' as const,
    id: account.id,
    name: account.name,
    mode: scope.mode,
    importAddress: account.importAddresses[scope.mode],
    ftp: {
      host: ftp.host ?? requestHost,
      port: ftp.port,
      username: account.ftpUsername,
      password: `Your ${scope.mode} API key`,
      tls: ftp.tlsRequired ? 'required' : ftp.tls ? 'optional' : 'off',
      implicitFtpsPort: ftp.implicitFtpsPort,
      certificateSha256: ftp.certificateSha256,
    },
    sftp: {
      host: sftp.host ?? requestHost,
      port: sftp.port,
      username: account.ftpUsername,
      password: `Your ${scope.mode} API key, or an SSH key registered for ${scope.mode} mode`,
      hostKeys: sftp.hostKeys,
    },
  };
}

export const presentSenders = (p: SenderPolicy) => ({ resource: 'senders' as const, policy: p.policy, senders: p.senders });
