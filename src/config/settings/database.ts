// PostgreSQL (or, without DATABASE_URL, PGlite in DATA_DIR).
import { Type } from '../typebox.ts';
import { oneOf, setting, url, whole } from '../setting-types.ts';

export const database = Type.Object(
  {
    databaseUrl: setting(url('postgres', 'postgresql'), {
      env: 'DATABASE_URL',
      secret: true,
      example: 'postgres://user:pass@db:5432/invoices',
      doc: 'postgres://... switches to PostgreSQL. Unset: the embedded PGlite database in DATA_DIR.',
    }),
    databasePoolSize: setting(whole(1, 500), { env: 'DATABASE_POOL_SIZE', default: '20', doc: 'Connections each process keeps to PostgreSQL at most.' }),
    databasePooler: setting(oneOf('none', 'transaction'), {
      env: 'DATABASE_POOLER',
      default: 'none',
      doc: 'transaction: a pooler in transaction mode (PgBouncer pool_mode=transaction) stands in front; no named prepared statements.',
    }),
    analyzeIntervalMs: setting(whole(0), {
      env: 'ANALYZE_INTERVAL_MS',
      default: '10000',
      doc: 'How often a process analyzes tables that grew by a tenth since their planner statistics (0: never).',
    }),
  },
  { title: 'Database' },
);
