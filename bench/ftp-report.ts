// The FTP benchmark's summary (bench/ftp.ts): the medians of the rounds of the service, the
// reference and vsftpd, their ratios against the targets, and the CPU a PDF of each.
import os from 'node:os';
import { ms, pct } from './bench-kit.ts';
import { median } from './lean-intake.ts';
import { costLine, type storeMeter } from './store-kit.ts';

export interface Round {
  rate: number;
  uploadRate: number;
  procMs: number;
  pgMs: number;
  clientMs: number;
  mainMs?: number[];
  latencies?: number[];
  costs?: Awaited<ReturnType<Awaited<ReturnType<typeof storeMeter>>>>;
}

/** Prints the summary of a run: its rounds, settings, the one-connection and PostgreSQL-alone figures and the staging groups (one process only). */
export function printFtpReport(
  settings: { FILES: number; CONNECTIONS: number; CLIENT_THREADS: number; ROUNDS: number; SEQUENTIAL: number; split: boolean },
  run: {
    svc: Round[];
    ref: Round[];
    vs: Round[];
    rss: number[];
    floor: { perSecond: number; pgMsPerFile: number };
    seqService: number;
    seqLean: number;
    size: number;
    store: string;
    postgres: string;
    groups?: { count: number; files: number };
  },
): void {
  const { FILES, CONNECTIONS, CLIENT_THREADS, ROUNDS, SEQUENTIAL, split } = settings;
  const { svc, ref, vs, rss, floor, seqService, seqLean, size, store, postgres, groups } = run;
  const med = (rs: Round[], f: (r: Round) => number) => median(rs.map(f));
  const perFile = (rs: Round[], f: (r: Round) => number) => med(rs, f) / FILES;
  const [svcRate, refRate, vsRate] = [med(svc, (r) => r.rate), med(ref, (r) => r.rate), med(vs, (r) => r.rate)];
  const [svcPg, refPg] = [perFile(svc, (r) => r.pgMs), perFile(ref, (r) => r.pgMs)];
  const latencies = svc.flatMap((r) => r.latencies!).sort((a, b) => a - b);
  const p99s = svc.map((r) => pct(r.latencies!, 99));
  const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(
    `FTP benchmark: ${FILES} PDFs of ${size} bytes over ${CONNECTIONS} FTPS connections (basic-ftp in ${CLIENT_THREADS} client threads), ${ROUNDS} rounds, document store ${store}, ${postgres}, ${os.cpus().length} CPUs`,
  );
  console.log(
    `service, upload -> attached   : ${svcRate.toFixed(1)} PDFs/s median (rounds ${svc.map((r) => r.rate.toFixed(1)).join(', ')}; uploads answered 226 at ${med(svc, (r) => r.uploadRate).toFixed(1)}/s)`,
  );
  console.log(
    `reference, upload -> done     : ${refRate.toFixed(1)} PDFs/s median (rounds ${ref.map((r) => r.rate.toFixed(1)).join(', ')}; uploads answered 226 at ${med(ref, (r) => r.uploadRate).toFixed(1)}/s)`,
  );
  console.log(
    `ratio service / reference     : ${(svcRate / refRate).toFixed(2)} (rounds ${svc.map((r, i) => (r.rate / ref[i].rate).toFixed(2)).join(', ')}; target >= 0.9: ${met(svcRate / refRate >= 0.9)})`,
  );
  console.log(
    `PostgreSQL CPU a file         : service ${svcPg.toFixed(2)} ms, reference ${refPg.toFixed(2)} ms, ratio ${(svcPg / refPg).toFixed(2)} (target <= 1.5: ${met(svcPg / refPg <= 1.5)})`,
  );
  console.log(
    `  upload done -> attached     : p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))} (rounds ${p99s.map(ms).join(', ')}), max ${ms(latencies[latencies.length - 1])}; target p99 < 1 s: ${met(Math.max(...p99s) < 1000)}`,
  );
  if (split)
    console.log(
      `  peak RSS (VmHWM)            : ftp process ${rss[1].toFixed(0)} MB, api + worker process ${rss[0].toFixed(0)} MB; target < 350 MB: ${met(Math.max(...rss) < 350)}`,
    );
  else console.log(`  service peak RSS (VmHWM)    : ${rss[0].toFixed(0)} MB (api + worker + ftp roles in one process); target < 350 MB: ${met(rss[0] < 350)}`);
  const costRound = [...svc].sort((a, b) => a.rate - b.rate)[Math.floor((svc.length - 1) / 2)];
  console.log(`cost a PDF (${store}, median round): ${costLine(costRound.costs!, FILES, costRound.pgMs)}`);
  console.log(`vsftpd to disk (no promise)   : ${vsRate.toFixed(1)} uploads/s median; ratio service / vsftpd ${(svcRate / vsRate).toFixed(2)}`);
  console.log(
    `PostgreSQL alone, same files  : ${floor.perSecond.toFixed(1)} inserts/s with ${CONNECTIONS} connections, ${floor.pgMsPerFile.toFixed(2)} ms of PostgreSQL CPU each (the floor of staging in the database)`,
  );
  console.log(
    `one connection, in sequence   : service ${seqService.toFixed(1)} uploads/s, reference ${seqLean.toFixed(1)} uploads/s (${SEQUENTIAL} files; ratio ${(seqService / seqLean).toFixed(2)})`,
  );
  const per = (n: number) => `${n.toFixed(2)} ms`;
  const mains = rss.map((_, i) => per(perFile(svc, (r) => r.mainMs![i])));
  const threads = split ? `ftp process main thread ${mains[1]}, api + worker main thread ${mains[0]}` : `main thread ${mains[0]}`;
  console.log(
    `CPU a PDF, service (median)   : ${per(perFile(svc, (r) => r.procMs))} (${threads}) + PostgreSQL ${per(svcPg)}; the client ${per(perFile(svc, (r) => r.clientMs))}`,
  );
  console.log(
    `CPU a PDF, reference (median) : ${per(perFile(ref, (r) => r.procMs))} (main thread ${per(perFile(ref, (r) => r.mainMs![0]))}) + PostgreSQL ${per(refPg)}; the client ${per(perFile(ref, (r) => r.clientMs))}`,
  );
  console.log(`CPU a PDF, vsftpd (median)    : ${per(perFile(vs, (r) => r.procMs))}; the client ${per(perFile(vs, (r) => r.clientMs))}`);
  // the machine's CPUs divided by all the CPU a file takes (client included): the rate a run that saturates them cannot pass
  const ceiling = (rs: Round[]) => (os.cpus().length * 1000) / (perFile(rs, (r) => r.procMs) + perFile(rs, (r) => r.pgMs) + perFile(rs, (r) => r.clientMs));
  console.log(
    `CPU-bound ceiling             : service ${ceiling(svc).toFixed(0)} PDFs/s, reference ${ceiling(ref).toFixed(0)} PDFs/s on ${os.cpus().length} CPUs (ratio ${(ceiling(svc) / ceiling(ref)).toFixed(2)})`,
  );
  const share = (rs: Round[]) => `${((100 * med(rs, (r) => r.clientMs)) / ((FILES / med(rs, (r) => r.uploadRate)) * 1000 * os.cpus().length)).toFixed(0)} %`;
  console.log(`client CPU share of machine   : ${share(svc)} (service), ${share(ref)} (reference), ${share(vs)} (vsftpd)`);
  if (groups) {
    const { count, files } = groups;
    console.log(
      `staging groups (whole run)    : ${count ? `${count} statements for ${files} files (${(files / count).toFixed(1)} a group)` : 'no group commit'}`,
    );
  }
  console.log(
    `machine load average          : ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end, ${os.cpus().length} CPUs`,
  );
}
