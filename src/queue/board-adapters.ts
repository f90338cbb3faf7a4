// Bull Board's view of the queues (the admin dashboard, http/plugins/queue-dashboard.ts): made
// here, where BullMQ's Queues live, so the HTTP side gets the board's adapters and no Queue.
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Queue } from 'bullmq';

export interface BoardOptions {
  /** where a job's record is shown, from the job's data; undefined when it names none */
  jobLink?: (data: Record<string, unknown>) => { href: string; displayText?: string } | undefined;
  /** job data and results as people may see them (secrets and bytes dropped) */
  format: (data: unknown) => unknown;
}

export function boardAdapters(queues: Queue[], opts: BoardOptions): BullMQAdapter[] {
  return queues.map((q) => {
    const adapter = new BullMQAdapter(q, {
      readOnlyMode: false,
      allowRetries: true,
      // the board treats an undefined link as "no link"; its type just does not say so
      externalJobUrl: opts.jobLink ? (job) => opts.jobLink!((job.data ?? {}) as Record<string, unknown>) as { href: string } : undefined,
    });
    adapter.setFormatter('data', (data) => opts.format(data));
    adapter.setFormatter('returnValue', (data) => opts.format(data));
    return adapter;
  });
}
