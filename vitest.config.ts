import { defineConfig } from 'vitest/config';

// The API suite runs twice: on embedded PGlite and on the machine's PostgreSQL.
const shared = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { ...shared, name: 'api-pglite', include: ['test/api/**/*.test.ts'], env: { TEST_DB: 'pglite' } } },
      { test: { ...shared, name: 'api-postgres', include: ['test/api/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      { test: { ...shared, name: 'intake', include: ['test/intake/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      { test: { ...shared, name: 'mail', include: ['test/mail/**/*.test.ts'], env: { TEST_DB: 'postgres' }, testTimeout: 120_000 } },
      { test: { ...shared, name: 'ftp', include: ['test/ftp/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      { test: { ...shared, name: 'sftp', include: ['test/sftp/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      { test: { ...shared, name: 'webhooks', include: ['test/webhooks/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      { test: { ...shared, name: 'ops', include: ['test/ops/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      // browser tests: playwright-core driving Debian's /usr/bin/chromium (installed by test/machine-setup.sh)
      { test: { ...shared, name: 'dashboard', include: ['test/dashboard/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
    ],
  },
});
