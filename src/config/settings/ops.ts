// Operations (docs/operations.md): shutdown, health and metrics, memory.
import { Type } from '../typebox.ts';
import { setting, text, whole } from '../setting-types.ts';

export const ops = Type.Object(
  {
    shutdownGraceMs: setting(whole(0), {
      env: 'SHUTDOWN_GRACE_MS',
      default: '25000',
      doc: 'On SIGTERM, running work gets this long to finish before connections are closed; what is left is handed back.',
    }),
    opsPort: setting(whole(0, 65535), {
      env: 'OPS_PORT',
      example: '8081',
      doc: 'Processes without the api role serve /healthz, /readyz and /metrics on this port. Unset: none.',
    }),
    metricsToken: setting(text('token'), {
      env: 'METRICS_TOKEN',
      secret: true,
      doc: 'When set, GET /metrics wants Authorization: Bearer <METRICS_TOKEN>; unset, it is open.',
    }),
    // Received files pass through enough short-lived objects that V8's factor ran a full GC every ~60 files, each
    // marking the whole ~50 MB heap on background threads: a third of the process's CPU at 150 files/s.
    heapGrowingPercent: setting(whole(0, 400), {
      env: 'HEAP_GROWING_PERCENT',
      default: '100',
      doc: "How far the JavaScript heap grows past its live size before a full GC (0: V8's own factor, 10-40 % at this heap size); see docs/operations.md.",
    }),
  },
  { title: 'Operations' },
);
