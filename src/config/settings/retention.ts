// How long things are kept, and how often the purges run.
import { Type } from '../typebox.ts';
import { setting, whole } from '../setting-types.ts';

export const retention = Type.Object(
  {
    testDataRetentionDays: setting(whole(1, 3650), {
      env: 'TEST_DATA_RETENTION_DAYS',
      default: '30',
      doc: 'Test-mode data (imports and staged files included) is purged after this many days.',
    }),
    intakeFailedRetentionDays: setting(whole(1, 3650), {
      env: 'INTAKE_FAILED_RETENTION_DAYS',
      default: '14',
      doc: 'Failed jobs stay in Redis (and on the dashboard) this long; the bytes of failed files are dropped after it.',
    }),
    mailRetentionDays: setting(whole(1, 3650), { env: 'MAIL_RETENTION_DAYS', default: '90', doc: 'How long claims of moved messages are kept.' }),
    trailRetentionDays: setting(whole(1, 36500), {
      env: 'TRAIL_RETENTION_DAYS',
      default: '3650',
      doc: 'Trail entries (who changed what) are purged after this many days.',
    }),
    purgeIntervalMs: setting(whole(1000), {
      env: 'PURGE_INTERVAL_MS',
      default: '3600000',
      doc: "How often the purges run (test data, idempotency keys, dashboard sessions, mail claims, failed files' content), once per installation.",
    }),
  },
  { title: 'Retention' },
);
