import fs from 'node:fs';
import path from 'node:path';
import { randomToken } from '../domain/ids.ts';

/**
 * ADMIN_TOKEN when set ("disabled" switches the admin API off). Unset, a token is generated once
 * into DATA_DIR/admin-token (mode 0600), so that `npm run admin` works on a fresh machine
 * without anyone copying secrets around.
 */
export function resolveAdminToken(configured: string | undefined, dataDir: string): string | undefined {
  if (configured === 'disabled') return undefined;
  if (configured) return configured;
  return secretFile(adminTokenFile(dataDir), 'adm_');
}

/** A secret kept in a file (mode 0600), made on first use: the admin token, the dashboard's cookie secret. */
export function secretFile(file: string, prefix = ''): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const token = `${prefix}${randomToken(40)}`;
    try {
      fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    } catch {
      return fs.readFileSync(file, 'utf8').trim(); // another process wrote it first
    }
    return token;
  }
}

export const adminTokenFile = (dataDir: string) => path.resolve(dataDir, 'admin-token');
