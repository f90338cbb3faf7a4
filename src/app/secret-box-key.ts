// The key of the SecretBox (TOTP keys at rest): SECRETS_KEY, or on the embedded database one
// generated into DATA_DIR/secrets-key at first start (0600, like the dashboard's secret). With
// PostgreSQL several nodes must share it, so none is generated: two-step sign-in then needs
// SECRETS_KEY (UserService refuses to turn it on, and the api role to start once anyone uses it).
import path from 'node:path';
import type { Config } from '../config/config.ts';
import { secretFile } from '../platform/admin-token.ts';
import { SecretBox } from '../services/secret-box.ts';

export function secretBox(config: Pick<Config, 'secretsKey' | 'databaseUrl' | 'dataDir'>): SecretBox | undefined {
  if (config.secretsKey) return new SecretBox(config.secretsKey);
  if (config.databaseUrl) return undefined;
  return new SecretBox(secretFile(path.resolve(config.dataDir, 'secrets-key')));
}
