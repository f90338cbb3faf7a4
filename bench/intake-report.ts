// The intake benchmark's summary (bench/intake.ts): imports at full speed and paced against the
// lean reference, direct documents and PostgreSQL alone, the targets, and the CPU and cost a file.
import os from 'node:os';
import { ms, pct } from './bench-kit.ts';
import { costLine, type storeMeter } from './store-kit.ts';

const TARGET = 250;
const RATIO_TARGET = 0.8;
const share = (cpuMs: number, seconds: number) => `${((100 * cpuMs) / (seconds * 1000 * os.cpus().length)).toFixed(0)} % of the machine`;

type Cpu = { service: number; pg: number; client: number };
type Costs = Awaited<ReturnType<Awaited<ReturnType<typeof storeMeter>>>>;
/** a round of POST /v2/imports until every file is attached */
interface ImportRun {
  rate: number;
  seconds: number;
  uploadedMs: number;
  latencies: number[];
  cpu: Cpu;
  costs: Costs;
  groups: { count: number; files: number };
}

/** Prints the summary of a run: the rounds of imports and of the reference, the paced run, the documents and PostgreSQL alone. */
export function printIntakeReport(
  settings: { FILES: number; CONCURRENCY: number; ROUNDS: number; RATE: number; workerConcurrency: string },
  run: {
    floods: ImportRun[];
    leans: { rate: number; cpu: Cpu }[];
    paced?: ImportRun;
    docSeconds: number;
    docLat: number[];
    docCpu: Cpu;
    docCosts: Costs;
    floor: { perSecond: number; pgMsPerFile: number };
    size: number;
    store: string;
    postgres: string;
  },
): void {
  const { FILES, CONCURRENCY, ROUNDS, RATE, workerConcurrency } = settings;
  const { floods, leans, paced, docSeconds, docLat, docCpu, docCosts, floor, size, store, postgres } = run;
  // the median round of each side (the lower middle one when the rounds are even)
  const mid = <T extends { rate: number }>(xs: T[]) => [...xs].sort((a, b) => a.rate - b.rate)[Math.floor((xs.length - 1) / 2)];
  const flood = mid(floods);
  const leanMedian = mid(leans);
  const leanRate = leanMedian.rate;
  const docRate = FILES / docSeconds;
  const latency = (l: number[]) => `p50 ${ms(pct(l, 50))}, p99 ${ms(pct(l, 99))}, max ${ms(l[l.length - 1])}`;
  const perFile = (x: { service: number; pg: number }) =>
    `${((x.service + x.pg) / FILES).toFixed(1)} ms (service ${(x.service / FILES).toFixed(1)}, PostgreSQL ${(x.pg / FILES).toFixed(1)})`;
  console.log(
    `intake benchmark: ${FILES} PDFs of ${size} bytes, ${CONCURRENCY} concurrent clients, worker concurrency ${workerConcurrency}, document store ${store}, ${postgres}, ${os.cpus().length} CPUs`,
  );
  console.log(
    `POST /v2/imports -> attached, full speed : ${flood.rate.toFixed(1)} files/s median of ${ROUNDS} rounds (${floods.map((f) => f.rate.toFixed(1)).join(', ')}; median round ${flood.seconds.toFixed(2)} s, uploads done in ${(flood.uploadedMs / 1000).toFixed(2)} s)`,
  );
  console.log(`  received -> attached                 : ${latency(flood.latencies)} (files wait in the queue while uploads outrun the workers)`);
  if (paced) {
    console.log(`POST /v2/imports -> attached, paced at ${RATE}/s : ${paced.rate.toFixed(1)} files/s (${paced.seconds.toFixed(2)} s)`);
    console.log(`  received -> attached                 : ${latency(paced.latencies)}`);
  }
  console.log(`reference (bare Fastify, lean), done    : ${leanRate.toFixed(1)} files/s median (${leans.map((l) => l.rate.toFixed(1)).join(', ')})`);
  console.log(
    `ratio imports / reference               : ${(flood.rate / leanRate).toFixed(2)} (rounds ${floods.map((f, r) => (f.rate / leans[r].rate).toFixed(2)).join(', ')}; target >= ${RATIO_TARGET}: ${flood.rate / leanRate >= RATIO_TARGET ? 'met' : 'MISSED'})`,
  );
  console.log(
    `POST /v2/documents (direct), full speed : ${docRate.toFixed(1)} files/s (${docSeconds.toFixed(2)} s), request p50 ${ms(pct(docLat, 50))}, p99 ${ms(pct(docLat, 99))}`,
  );
  console.log(`ratio imports / documents (full speed)  : ${(flood.rate / docRate).toFixed(2)}`);
  console.log(
    `PostgreSQL alone, same files            : ${floor.perSecond.toFixed(1)} inserts/s with 8 connections, ${floor.pgMsPerFile.toFixed(1)} ms of PostgreSQL CPU each (the floor of staging in the database); ratio imports / that ${(flood.rate / floor.perSecond).toFixed(2)}`,
  );
  console.log(
    `target >= ${TARGET} files/s imported         : ${flood.rate >= TARGET ? 'met' : 'MISSED'} at full speed${paced ? `, ${paced.rate >= TARGET ? 'met' : 'MISSED'} paced` : ''}`,
  );
  console.log(
    `client CPU (this process)               : ${share(flood.cpu.client, flood.seconds)} at full speed, ${share(leanMedian.cpu.client, FILES / leanMedian.rate)} reference${paced ? `, ${share(paced.cpu.client, paced.seconds)} paced` : ''}, ${share(docCpu.client, docSeconds)} documents`,
  );
  console.log(`CPU per file, imports at full speed     : ${perFile(flood.cpu)}`);
  console.log(`CPU per file, reference (median round)  : ${perFile(leanMedian.cpu)}`);
  if (paced) console.log(`CPU per file, imports paced            : ${perFile(paced.cpu)}`);
  const grouped = (g: { count: number; files: number }) =>
    g.count ? `${g.count} staging statements for ${g.files} files (${(g.files / g.count).toFixed(1)} a group)` : 'no group commit';
  console.log(`staging groups (intake_staging_batch_size): full speed ${grouped(flood.groups)}${paced ? `, paced ${grouped(paced.groups)}` : ''}`);
  console.log(`CPU per file, documents                 : ${perFile(docCpu)}`);
  console.log(`cost a file (${store}), imports        : ${costLine(flood.costs, FILES, flood.cpu.pg)}`);
  if (paced) console.log(`cost a file (${store}), imports paced  : ${costLine(paced.costs, FILES, paced.cpu.pg)}`);
  console.log(`cost a file (${store}), documents      : ${costLine(docCosts, FILES, docCpu.pg)}`);
  // the machine's CPUs divided by all the CPU a file takes (client included): the rate a run that saturates them cannot pass
  const ceiling = (x: { service: number; pg: number; client: number }) => (os.cpus().length * 1000 * FILES) / (x.service + x.pg + x.client);
  console.log(
    `CPU-bound ceiling                       : imports ${ceiling(flood.cpu).toFixed(0)} files/s, reference ${ceiling(leanMedian.cpu).toFixed(0)} files/s on ${os.cpus().length} CPUs (ratio ${(ceiling(flood.cpu) / ceiling(leanMedian.cpu)).toFixed(2)})`,
  );
  console.log(
    `machine load average                    : ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end`,
  );
}
