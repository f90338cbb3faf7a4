// Growth benchmark: the same work at each level of a year of one account's data (bench/scale/):
// a fresh PostgreSQL database per level, migrated by the service and filled with generate_series
// to the level (invoices, files, history, webhook events), then in one run: intake to attached by
// HTTP and FTPS (wall, service CPU and PostgreSQL CPU per file), GET by id, list pages first and
// deep by cursor, the imports lists, the dashboard's pages and search, every periodic task
// (reconciler, retention, purges, webhook sweep), and the database's size per file. Prints each
// figure at each level with its ratio to the smallest level (a cost: above 1.25 is growth to
// explain), the load average beside it and the client's CPU per level.
//
//   npm run bench:scale -- [--levels 1e3,1e5,1e6] [--files 200] [--rounds 30]
//   SCALE_KEEP_DATABASE=1 keeps each level's database (for EXPLAIN) and prints its URL
import os from 'node:os';
import { parseArgs } from 'node:util';
import { buildService, runBench } from './bench-kit.ts';
import { runLevel, type LevelResult } from './scale/level.ts';
import { printTable } from './scale/report.ts';

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '1e3,1e5' },
    files: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '30' },
  },
});

runBench(async () => {
  const levels = values
    .levels!.split(',')
    .map(Number)
    .sort((a, b) => a - b);
  if (levels.some((l) => !Number.isInteger(l) || l < 100)) throw new Error('--levels: whole numbers of rows, at least 100 (1e3,1e5,...)');
  buildService();
  const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(1)}] ${s}`);
  log(`bench:scale: levels ${levels.join(', ')}, ${values.files} files per channel, ${values.rounds} rounds per read; ${os.cpus().length} cores`);
  const results: LevelResult[] = [];
  for (const level of levels) {
    const r = await runLevel({ level, files: Number(values.files), rounds: Number(values.rounds), log });
    log(`level ${level}: filled in ${r.fillSeconds.toFixed(0)} s; client CPU ${(r.clientCpuMs / 1000).toFixed(1)} s`);
    results.push(r);
  }
  printTable(results);
});
