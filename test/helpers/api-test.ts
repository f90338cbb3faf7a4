// The API test fixture: `apiTest` is vitest's `test` with, per test file, one running service on a
// fresh database (`t`), one account in it (`acct`) and its live key (`key`), each started when a
// test first asks for it and closed after the file's last test. A file that needs other service
// settings says so once: `apiTest.override('appOptions', { config: { ... } })` at its top level.
// A file fixture set up inside a test counts against that test's timeout, and a cold start on a
// loaded machine takes tens of seconds: each file asks for `t` in `it.beforeAll` (hook timeout),
// on the `it` its tests use (an extension of apiTest holds fixture instances of its own).
import { test } from 'vitest';
import { startTestApp, type TestAccount, type TestApp, type TestAppOptions } from './test-app.ts';

export const apiTest = test
  .extend('appOptions', { scope: 'file' }, {} as TestAppOptions)
  .extend('t', { scope: 'file' }, async ({ appOptions }, { onCleanup }): Promise<TestApp> => {
    const t = await startTestApp(appOptions);
    onCleanup(() => t.close());
    return t;
  })
  .extend('acct', { scope: 'file' }, async ({ t }): Promise<TestAccount> => t.createAccount())
  .extend('key', { scope: 'file' }, async ({ acct }) => acct.liveKey);
