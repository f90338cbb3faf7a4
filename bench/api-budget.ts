// The API benchmark's budget run (BENCH_BUDGET=1 npm run bench:api) and the figures it shares with
// bench/api.ts: a wrk row, the median of rounds, the load average.
import os from 'node:os';
import { freePort } from '../testkit/ports.ts';
import type { WrkResult } from './wrk.ts';

// the budget's levels: each adds the next of bare-server.ts's BARE_WITH steps to the one before
const STEPS = ['id', 'key', 'gate', 'guard', 'schema', 'metrics', 'sql', 'wake'];
export const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export type Row = WrkResult & { name: string /** server CPU per request, µs */; cpuUs: number /** PostgreSQL's backends' CPU per request, µs */; pgUs: number };
type Measure = (name: string, pid: number, url: string, o?: { headers?: Record<string, string>; body?: (run: string) => string }) => Promise<Row>;

export const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface BudgetCase {
  key: string;
  what: string;
  barePath?: string;
  body?: (run: string) => string;
  service: () => Promise<Row>;
}
export type Started = { pid: number; url: string };

/**
 * The budget: a bare server per level, each with one more of the service's promises than the one
 * before (BARE_WITH), and the service, all alternating in every round (the order flips each round).
 * Prints each level's req/s against the bare server's in the same round and its server CPU per request.
 */
export async function budget(
  cases: BudgetCase[],
  startBare: (port: number, steps?: string) => Promise<Started>,
  auth: Record<string, string>,
  o: { measure: Measure; connections: number; duration: number; rounds: number },
) {
  const { measure, connections: CONNECTIONS, duration: DURATION, rounds: ROUNDS } = o;
  const levels = ['', ...STEPS.map((_, i) => STEPS.slice(0, i + 1).join(','))];
  const servers: (Started & { name: string; steps: string })[] = [];
  for (const steps of levels) servers.push({ steps, name: steps ? `+${steps.split(',').at(-1)}` : 'bare', ...(await startBare(await freePort(), steps)) });
  console.log(`\nbudget: ${CONNECTIONS} connections, ${DURATION} s per measurement, ${ROUNDS} rounds, ${os.cpus().length} CPUs, load average ${load()}`);
  for (const c of cases) {
    const runs = [
      // wake only follows an insert
      ...servers
        .filter((s) => c.key === 'post' || !s.steps.endsWith('wake'))
        .map((s) => ({
          name: s.name,
          run: () => measure(`${c.what} ${s.name}`, s.pid, `${s.url}${c.barePath}`, { headers: auth, body: c.body }),
        })),
      { name: 'service', run: c.service },
    ];
    const rows: Row[][] = runs.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`${c.what} round ${round}`);
      const order = runs.map((_, i) => i);
      if (round % 2 === 0) order.reverse();
      for (const i of order) rows[i].push(await runs[i].run());
    }
    console.log(`\n${c.what} budget (median of ${ROUNDS} rounds; each level adds one promise to the level above; load average now ${load()})`);
    console.log(
      `  ${'level'.padEnd(10)} ${'req/s'.padStart(7)} ${'ratio'.padStart(6)} ${'CPU µs/req'.padStart(11)} ${'added'.padStart(6)} ${'PostgreSQL µs/req'.padStart(18)}`,
    );
    let before: number | undefined;
    for (const [i, r] of runs.entries()) {
      const cpu = median(rows[i].map((x) => x.cpuUs));
      const ratio = median(rows[i].map((x, round) => x.rps / rows[0][round].rps));
      const added = before === undefined ? '' : (cpu - before).toFixed(0);
      console.log(
        `  ${r.name.padEnd(10)} ${median(rows[i].map((x) => x.rps))
          .toFixed(0)
          .padStart(7)} ${ratio.toFixed(2).padStart(6)} ${cpu.toFixed(0).padStart(11)} ${added.padStart(6)} ${median(rows[i].map((x) => x.pgUs))
          .toFixed(0)
          .padStart(18)}`,
      );
      before = cpu;
    }
  }
}
