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
  const file = adminTokenFile(dataDir);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const token = `adm_${randomToken(40)}`;
    fs.writeFileSync(file, token + '\n', { mode: 0o600, flag: 'wx' });
    return token;
  }
}

export const adminTokenFile = (dataDir: string) => path.resolve(dataDir, 'admin-token');
