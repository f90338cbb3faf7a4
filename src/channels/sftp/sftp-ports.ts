// What the SFTP channel needs from the rest of the service, and nothing more: the wiring
// (sftp-role.ts) builds these from the account services.
import type { Scope } from '../../domain/scope.ts';
import type { KeyScope } from '../../domain/upload-keys.ts';

export interface SftpAccounts {
  /** the FTP login: the account's ftpUsername with its live or test key, or an upload key (checked against `address`) */
  authenticatePassword(username: string, password: string, address: string | null): Promise<Scope | undefined>;
  /**
   * the account and mode a public key (its blob) registered for this user opens, and the key's id;
   * an upload key's SSH key opens that key's scope, only from its networks (checked against `address`)
   */
  authenticatePublicKey(username: string, blob: Buffer, address: string | null): Promise<{ scope: KeyScope; keyId: string } | undefined>;
  /** a public-key login went through: an upload key's last use is noted */
  publicKeyLogin?(scope: KeyScope, address: string | null): void;
  /** a stamp of the scope's API key that changes when the key is rotated (undefined: none) */
  keyStamp(scope: Scope): Promise<string | undefined>;
  /** whether a registered SSH key still exists */
  sshKeyRegistered(keyId: string): Promise<boolean>;
}
