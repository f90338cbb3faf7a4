// Route schemas are compiled at their route's first use (src/http/lazy-schema-compilers.ts), so a
// schema that cannot compile no longer stops the start: this compiles every schema of every route
// the service registers (the API with its intake and webhook routes, admin, dashboards, metrics).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboard } from '../../src/http/dashboard/dashboard.ts';
import { lazySchemaCompilers } from '../../src/http/lazy-schema-compilers.ts';
import { queueDashboard } from '../../src/http/plugins/queue-dashboard.ts';
import { intakeRecordLink, intakeView } from '../../src/http/routes/intake-view.ts';
import { metricsPlugin } from '../../src/http/routes/metrics-route.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const compilers = lazySchemaCompilers();
let t: TestApp;

beforeAll(async () => {
  // the plugins src/app/start-service.ts gives buildServer
  t = await startTestApp({
    server: (c) => ({
      schemaCompilers: compilers,
      adminPlugins: [queueDashboard({ jobs: c.jobs, adminToken: c.config.adminToken!, jobLink: intakeRecordLink }), intakeView(c, c.config.adminToken!)],
      plugins: [metricsPlugin(c.metrics, c.config.metricsToken), dashboard(c)],
    }),
  });
});
afterAll(async () => {
  await t?.close();
});

describe('route schemas', () => {
  it('every schema of every route compiles', async () => {
    const compiled = compilers.compileAll();
    // each /v2 resource has its body, querystring, params and response schemas
    expect(compiled).toBeGreaterThan(300);
    expect(compilers.compileAll()).toBe(0);
    // and what was compiled ahead serves: a limit that is no number is refused
    const { liveKey } = await t.createAccount();
    const res = await t.request('GET', '/v2/invoices?limit=abc', { key: liveKey });
    expect(res.status).toBe(400);
  });
});
