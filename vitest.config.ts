import { defineConfig } from 'vitest/config';

// The API suite runs twice: on embedded PGlite and on the machine's PostgreSQL.
// expect.poll waits up to 15 s by default (vitest's own is 1 s): a poll that renders a page or
// waits for a worker must outlast one slow round on a loaded CI machine.
const shared = { testTimeout: 60_000, hookTimeout: 120_000, expect: { poll: { timeout: 15_000 } } };
// The intake, API and channel files that run once more on each document store other than the
// database (TEST_STORE, test/helpers/test-store.ts): every path that writes or reads bytes, not every file.
const STORE_MATRIX = [
  'test/api/documents.test.ts', 'test/api/large-content.test.ts', 'test/api/account-imports.test.ts', 'test/api/maintenance.test.ts',
  'test/intake/receive.test.ts', 'test/intake/matching.test.ts', 'test/intake/archives.test.ts', 'test/intake/attach-follow-up.test.ts',
  'test/ftp/ftp-plain.test.ts', 'test/ftp/ftp-evidence.test.ts', 'test/sftp/sftp-evidence.test.ts',
  'test/mail/smtp-receiver.test.ts', 'test/mail/mail-containers.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // 3 files at once on 2 cores: most files wait on processes they started (servers, clients,
    // Postfix, Chromium) as much as they compute; the integration suite took 969 s against 1,120 s
    // with 2 (2026-12-04, bench/RESULTS.md)
    maxWorkers: 3,
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { ...shared, name: 'api-pglite', include: ['test/api/**/*.test.ts'], env: { TEST_DB: 'pglite' } } },
      { test: { ...shared, name: 'api-postgres', include: ['test/api/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      // the document store's drivers (test/storage/document-store-contract.test.ts) and their faults
      { test: { ...shared, name: 'storage', include: ['test/storage/**/*.test.ts'], env: { TEST_DB: 'postgres' } } },
      { test: { ...shared, name: 'store-directory', include: STORE_MATRIX, env: { TEST_DB: 'postgres', TEST_STORE: 'directory' }, testTimeout: 120_000 } },
      { test: { ...shared, name: 'store-s3', include: STORE_MATRIX, env: { TEST_DB: 'postgres', TEST_STORE: 's3' }, globalSetup: ['test/helpers/s3-global-setup.ts'], testTimeout: 120_000 } },
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
