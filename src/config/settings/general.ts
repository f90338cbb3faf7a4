// General: what this process runs, where it keeps its files, how much it logs.
import { Type } from '../typebox.ts';
import { oneOf, oneOfList, setting, text } from '../setting-types.ts';

export const ALL_ROLES = ['api', 'ftp', 'sftp', 'mail', 'smtp', 'worker'] as const;
export type Role = (typeof ALL_ROLES)[number];

export const general = Type.Object(
  {
    roles: setting(oneOfList(ALL_ROLES), {
      env: 'ROLES',
      default: ALL_ROLES.join(','),
      doc: 'The roles this process runs (also `--role worker`, repeatable); several processes can share the work (docs/operations.md).',
    }),
    dataDir: setting(text('directory'), {
      env: 'DATA_DIR',
      default: './data',
      doc: 'The embedded database (without DATABASE_URL) and local state: generated keys, certificates, the private Redis.',
    }),
    logLevel: setting(oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), {
      env: 'LOG_LEVEL',
      default: 'info',
      doc: 'The least severe log line written.',
    }),
  },
  { title: 'General' },
);
