// The received-files list: filters kept in the address, cursor pages (as GET /v2/imports pages),
// a CSV export of everything the filter shows (all pages), and retry/discard of selected files.
// Actions are offered only where they can succeed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import type { IntakeChannel, IntakeFilter, IntakeListItem, ImportRecord, IntakeStatus } from '../../domain/intake.ts';
import { fileReply } from '../file-responses.ts';
import { redirectWith, signedInPage } from './flash.ts';
import { CHANNELS, STATUSES } from './format.ts';
import { senderText } from './locale.ts';
import { reasonWords } from './reason-words.ts';
import { onlySignedIn, signed } from './session.ts';

type Query = Record<string, string | undefined>;
const PERIODS: Record<string, number> = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24 };
const PAGE_SIZE = 50;
const EXPORT_PAGE = 250;
const BULK_MAX = 100;

/** The list's filter from the query; anything unknown is ignored. */
function filterOf(q: Query, limit = PAGE_SIZE): { filter: IntakeFilter; values: Query } {
  const status = STATUSES.includes(q.status as IntakeStatus) ? (q.status as IntakeStatus) : undefined;
  const channel = CHANNELS.includes(q.channel as IntakeChannel) ? (q.channel as IntakeChannel) : undefined;
  const period = q.period && PERIODS[q.period] ? q.period : undefined;
  const text = q.q?.trim().slice(0, 100) || undefined;
  const after = q.after && /^imp_\w{1,40}$/.test(q.after) ? q.after : undefined;
  return {
    filter: { status, channel, text, after, since: period ? new Date(Date.now() - PERIODS[period] * 3_600_000) : undefined, limit },
    values: { status, channel, period, q: text },
  };
}

const queryString = (values: Query) => new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => Boolean(e[1]))).toString();

/** What can be done to a file: retry and assign need its bytes; an attached file is done; a held one is an owner's to release. */
export function fileActions(file: ImportRecord, content: Buffer | undefined, owner = false) {
  const open = file.status !== 'attached';
  const held = file.status === 'held';
  return {
    retry: (file.status === 'failed' || file.status === 'waiting') && !!content,
    assign: open && !held && !!content,
    discard: open && (!held || owner),
    release: held && owner,
  };
}

/** One CSV field; a leading = + - @ is defused so a spreadsheet never runs it as a formula. */
const csvField = (v: string | number) => {
  const s = typeof v === 'number' ? String(v) : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export async function filesRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  /** one page of the filter and whether there is another */
  const pageOf = async (req: FastifyRequest<{ Querystring: Query }>) => {
    const { filter, values } = filterOf(req.query);
    const rows = await c.intake.search(signed(req).scope, { ...filter, limit: PAGE_SIZE + 1 });
    const files = rows.slice(0, PAGE_SIZE);
    const base = queryString(values);
    const next = rows.length > PAGE_SIZE ? `?${queryString({ ...values, after: files[files.length - 1].id })}` : undefined;
    return { files, values, query: base, rowsQuery: queryString({ ...values, after: filter.after }), first: filter.after ? `?${base}` : undefined, next };
  };

  app.get<{ Querystring: Query }>('/dashboard/files', signedInPage(c.users), async (req, reply) => {
    const account = await c.accounts.get(signed(req).scope.accountId);
    return reply.view('files.eta', { title: req.t('nav.files'), account, ...(await pageOf(req)), limit: PAGE_SIZE, statuses: STATUSES, channels: CHANNELS });
  });

  // the rows alone: what the live update swaps in (the same page of the same filter)
  app.get<{ Querystring: Query }>('/dashboard/files/rows', onlySignedIn, async (req, reply) => reply.view('file-rows.eta', await pageOf(req)));

  app.get<{ Querystring: Query }>('/dashboard/files.csv', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    const { filter } = filterOf({ ...req.query, after: undefined }, EXPORT_PAGE);
    const t = req.t;
    const lines = [
      [
        t('files.received'),
        t('files.channel'),
        t('files.sender'),
        t('files.file'),
        t('files.sizeBytes'),
        t('files.status'),
        t('files.reason'),
        t('files.invoice'),
      ]
        .map(csvField)
        .join(','),
    ];
    const moment = new Intl.DateTimeFormat('sv-SE', { dateStyle: 'short', timeStyle: 'medium', timeZone: req.fmt.timeZone }); // 2026-11-26 18:07:46: what spreadsheets read as a date
    for (let after: string | undefined, rows: IntakeListItem[]; ; after = rows[rows.length - 1].id) {
      rows = await c.intake.search(scope, { ...filter, after });
      for (const f of rows) {
        lines.push(
          [
            moment.format(f.receivedAt),
            t(`channel.${f.channel}`),
            senderText(t, f.channel, f.sender),
            f.filename,
            f.size,
            t(`status.${f.status}`),
            reasonWords(t, req.fmt, f),
            f.invoiceNumber ?? '',
          ]
            .map(csvField)
            .join(','),
        );
      }
      if (rows.length < EXPORT_PAGE) break;
    }
    return fileReply(reply, 'text/csv; charset=utf-8', 'received-files.csv').send(`\uFEFF${lines.join('\r\n')}\r\n`);
  });

  // retry or discard the ticked files; each one that cannot is counted, not an error
  app.post<{ Body: Record<string, string | string[] | undefined> }>('/dashboard/files/bulk', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    const raw = req.body?.ids;
    const ids = [...new Set((Array.isArray(raw) ? raw : raw ? [raw] : []).filter((id) => /^imp_\w{1,40}$/.test(id)))].slice(0, BULK_MAX);
    const action = req.body?.action;
    const back = typeof req.body?.back === 'string' && req.body.back.startsWith('?') ? `/dashboard/files${req.body.back}` : '/dashboard/files';
    if (!ids.length || (action !== 'retry' && action !== 'discard')) return redirectWith(c.users, req, reply, back, { error: { key: 'files.noneSelected' } });
    if (action === 'discard' && req.body?.confirm !== 'yes') return redirectWith(c.users, req, reply, back, { error: { key: 'files.tickBulkDiscard' } });
    let done = 0;
    for (const id of ids) {
      try {
        await (action === 'retry' ? c.importActions.retry(scope, id) : c.importActions.discard(scope, id));
        done++;
      } catch (e) {
        if (!(e instanceof DomainError && ['conflict', 'not_found', 'gone'].includes(e.kind))) throw e;
      }
    }
    const params = { done: String(done), skipped: String(ids.length - done) };
    return redirectWith(c.users, req, reply, back, { notice: { key: action === 'retry' ? 'files.bulkRetried' : 'files.bulkDiscarded', params } });
  });
}
