// A PostgreSQL restart (`pg_ctl restart -m fast`: every connection cut with 57P01, new ones
// refused with 57P03 for a moment) while files flow in by HTTP and FTPS, roles split over
// processes. The server is a private cluster started by this test (the machine's is shared).
// Clients see 503 + Retry-After or a transient FTP reply, never a 500; no process exits; each
// answers /readyz again within 30 s; every acknowledged file is attached once.
import { expect, it } from 'vitest';
import { pollFor } from '../../testkit/wait.ts';
import { expectOnlyRetryable } from './engine-flow.ts';
import { verify, waitAttached } from './multi-process-checks.ts';
import { flowOnPrivateEngines } from './private-engines.ts';

const e = flowOnPrivateEngines();

const received = async () => (await e.sql.query<{ n: number }>('select count(*)::int as n from intake_records')).rows[0].n;

it('two restarts mid-flow: 503 with Retry-After or FTP 4xx, no exit, ready within 30 s, nothing lost or attached twice', async () => {
  const files = await e.flow.makeFiles('PGR', 80, ['http', 'ftp']);
  const sending = Promise.all([e.flow.sendHttp(files.filter((f) => f.channel === 'http')), e.flow.sendFtps(files.filter((f) => f.channel === 'ftp'))]);
  for (const after of [15, 40]) {
    await pollFor(
      () => received().catch(() => 0),
      (n) => n >= after,
      { ms: 120_000, everyMs: 100 },
    );
    await e.server.restart();
  }
  const restartedAt = Date.now();
  // every process is ready again by itself, within 30 s of the last restart
  await Promise.all(
    [...e.flow.processes.values()].map(async (p) => {
      const base = await p.url();
      const ready = await pollFor(
        () =>
          fetch(`${base}/readyz`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s === 200,
        { ms: 30_000, everyMs: 200 },
      );
      expect(ready, `${p.roles} /readyz`).toBe(200);
    }),
  );
  expect(Date.now() - restartedAt).toBeLessThan(30_000);
  await sending;
  await waitAttached(e.sql, files);
  const { duplicates } = await verify(e.sql, files);
  expect(duplicates).toBe(0);

  for (const [name, p] of e.flow.processes) {
    expect(p.proc.exitCode, `${name} exited: ${p.stderr.join('')}`).toBeNull();
    expect(
      p.logs.filter((l) => l.msg === 'unhandled error'),
      name,
    ).toEqual([]);
  }
  // the restart reached the pools (each process saw its connections cut) and was handled
  const lost = [...e.flow.processes.values()].filter((p) => p.logs.some((l) => l.msg === 'database connection lost'));
  expect(lost.length).toBeGreaterThan(0);
  expectOnlyRetryable(e.flow);
}, 300_000);
