// The BullMQ series of a container's registry (metrics.ts): job counts per queue and state and
// the age of the oldest waiting job, read from Redis at scrape time, and the jobs this process's
// workers finish, counted and timed.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

type JobOutcome = 'completed' | 'failed' | 'retried';

/** The part of a BullMQ Queue the metrics read (so tests and other queue kinds fit). */
interface CountableQueue {
  readonly name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
  /** BullMQ's: with asc, the oldest first */
  getJobs(types: 'waiting'[], start: number, end: number, asc: boolean): Promise<({ timestamp: number; processedOn?: number | null } | undefined)[]>;
}

/** The part of a BullMQ Worker the metrics listen to. */
interface ObservableWorker {
  readonly name: string;
  on(event: 'completed', listener: (job: FinishedJob) => void): unknown;
  on(event: 'failed', listener: (job: FinishedJob | undefined, err: Error) => void): unknown;
}
interface FinishedJob {
  name: string;
  processedOn?: number | null;
  finishedOn?: number | null;
}

export interface QueueMetrics {
  /** report this queue's job counts per state at every scrape */
  watch(queue: CountableQueue): void;
  /** count and time every job this worker finishes */
  observeWorker(worker: ObservableWorker): void;
  jobFinished(queue: string, name: string, outcome: JobOutcome, seconds: number): void;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed', 'paused'] as const;

export function queueMetrics(registers: Registry[]): QueueMetrics {
  const watched = new Map<string, CountableQueue>();
  new Gauge({
    name: 'bullmq_queue_jobs',
    help: 'Jobs per queue and state, read from Redis at scrape time (the same in every process: aggregate with max)',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        [...watched.values()].map(async (q) => {
          // Redis down: leave the series out rather than fail the whole scrape
          const counts = await q.getJobCounts(...QUEUE_STATES).catch(() => null);
          if (!counts) return;
          for (const state of QUEUE_STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
  new Gauge({
    name: 'bullmq_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting for a worker, per queue (since it was added, or since its last start for a retry; 0: none waiting), read from Redis at scrape time',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      const now = Date.now();
      await Promise.all(
        [...watched.values()].map(async (q) => {
          const oldest = await q.getJobs(['waiting'], 0, 0, true).catch(() => null);
          if (!oldest) return;
          const since = oldest.filter((j) => j !== undefined).map((j) => Math.max(j.timestamp, j.processedOn ?? 0));
          this.set({ queue: q.name }, since.length ? Math.max(0, (now - Math.min(...since)) / 1000) : 0);
        }),
      );
    },
  });
  const jobsTotal = new Counter({
    name: 'bullmq_jobs_total',
    help: 'Jobs finished by this process, by outcome (retried: failed, will run again)',
    labelNames: ['queue', 'name', 'outcome'],
    registers,
  });
  const jobDuration = new Histogram({
    name: 'bullmq_job_duration_seconds',
    help: 'Processing time of jobs finished by this process, by outcome',
    labelNames: ['queue', 'name', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const jobFinished = (queue: string, name: string, outcome: JobOutcome, seconds: number) => {
    jobsTotal.inc({ queue, name, outcome });
    jobDuration.observe({ queue, name, outcome }, Math.max(0, seconds));
  };
  const elapsed = (job: FinishedJob) => ((job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1000;
  return {
    watch: (q) => void watched.set(q.name, q),
    observeWorker: (w) => {
      w.on('completed', (job) => jobFinished(w.name, job.name, 'completed', elapsed(job)));
      // BullMQ sets finishedOn only when the job has failed for good; otherwise it will retry
      w.on('failed', (job) => job && jobFinished(w.name, job.name, job.finishedOn ? 'failed' : 'retried', elapsed(job)));
    },
    jobFinished,
  };
}
