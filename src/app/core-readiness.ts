import type { ReadinessCheck } from '../http/routes/health.ts';
import { withTimeout } from '../platform/timeouts.ts';
import type { Container } from './container.ts';

/** The checks every process's /readyz runs: its database and Redis answer. Roles add their own. */
export function coreReadiness(c: Pick<Container, 'db' | 'redis'>): Map<string, ReadinessCheck> {
  return new Map<string, ReadinessCheck>([
    ['database', async () => void (await c.db.query('select 1'))],
    ['redis', async () => void (await withTimeout(c.redis.ping(), 1000))],
  ]);
}
