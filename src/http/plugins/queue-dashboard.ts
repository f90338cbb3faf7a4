// Bull Board at /admin/queues behind the admin credentials (Bearer, or Basic with the token as
// password for browsers). Every queue of the service is listed; retry and clean work; job data
// is shown without anything that looks like a secret or file bytes; each job links to its intake
// record when its data names one.
import { parse as parseQuery } from 'node:querystring';
import { createBullBoard } from '@bull-board/api';
import { FastifyAdapter } from '@bull-board/fastify';
import type { JobQueues } from '../../queue/job-queues.ts';
import type { FastifyPluginAsync } from 'fastify';
import { operatorGuard } from './admin-auth.ts';
import { sameOriginActions } from './same-origin-actions.ts';

const DASHBOARD_PATH = '/admin/queues';

export interface DashboardOptions {
  /** the queue module: every queue of the service, as the board's adapters */
  jobs: Pick<JobQueues, 'board'>;
  adminToken: string;
  /** PUBLIC_URL: its origin is the board's own besides the one the request was sent to */
  publicUrl?: string;
  /** where a job's import record is shown, from the job's data; undefined when it names none */
  jobLink?: (data: Record<string, unknown>) => { href: string; displayText?: string } | undefined;
}

const SECRET_NAME = /(key|token|secret|passw(or)?d|^pass$|authorization|bytes|content|buffer|base64)$/i;
const MAX_STRING = 1024;

/** Job data for people: secret-looking members and file bytes dropped, long strings cut. */
function redactJobData(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' && value.length > MAX_STRING ? `[${value.length} characters omitted]` : value;
  }
  if (depth > 6) return '[nested too deep]';
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value) || (value as { type?: unknown }).type === 'Buffer') return '[bytes omitted]';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redactJobData(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) ? '[omitted]' : redactJobData(v, depth + 1);
  return out;
}

export function queueDashboard(opts: DashboardOptions): FastifyPluginAsync {
  return async (app) => {
    const serverAdapter = new FastifyAdapter();
    serverAdapter.setBasePath(DASHBOARD_PATH);
    const adapters = opts.jobs.board({ jobLink: opts.jobLink, format: (data) => redactJobData(data) });
    createBullBoard({ queues: adapters, serverAdapter, options: { uiConfig: { boardTitle: 'invoice-intake queues', hideDocsLink: true } } });

    await app.register(async (board) => {
      board.addHook('onRequest', operatorGuard(opts.adminToken));
      // a browser holding the Basic credentials must not act for another site's page
      board.addHook('onRequest', sameOriginActions(opts.publicUrl));
      // the board's page links its fonts from the internet; it reads well with the system's own,
      // and an operator's browser then asks nothing outside this server
      board.addHook('onSend', async (_req, reply, payload) => {
        if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
        return payload.replace(/<link[^>]+href="https:\/\/[^"]*"[^>]*>/g, '');
      });
      // The server lowercases query names for the /v2 API; the board's API wants them as sent.
      board.addHook('preHandler', async (req) => {
        const q = req.url.indexOf('?');
        (req as { query: unknown }).query = q < 0 ? {} : parseQuery(req.url.slice(q + 1));
      });
      await board.register(serverAdapter.registerPlugin() as FastifyPluginAsync, { prefix: DASHBOARD_PATH });
    });
  };
}
