// The benchmark's baseline: a bare Fastify + pg server that reads the same invoice row the
// service reads (same join, a named prepared statement as the service uses) and inserts an
// invoice with one prepared statement, and reads a document's bytes, with nothing else: no auth,
// no limiter, no scope. It uses pg as it comes, as a user's bare handler would.
//
// BARE_WITH adds the service's promises one at a time, each with the service's own code, for the
// budget (`BENCH_BUDGET=1 npm run bench:api`): what each costs on top of the bare server.
//   id      Fastify's logger (pino at warn, the lazy child), a request id (x-request-id) and its header
//   key     the Bearer key checked: pattern, SHA-256 hash, the scope from the key cache (database on a miss)
//   gate    the rate limit (ApiRateLimiter in Redis, taken in slices) and its three headers, and
//           the announcements that say whether the key cache may answer
//   guard   the NUL guard on params and body, field names matched case-insensitively (POST)
//   schema  route schemas (params, body) and the response schema, the HAL presenter and media type
//   metrics the HTTP request counter and latency histogram (onResponse)
//   sql     the service's statements: the read scoped to account and mode (tombstones too), the
//           insert as one CTE that locks the customer by key share and skips a duplicate number
//   wake    after an insert, the look-up of the files waiting for the new invoice (intake)
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import pino from 'pino';
import { Registry } from 'prom-client';
import { hashKey, keyMode } from '../src/domain/api-keys.ts';
import type { Scope } from '../src/domain/scope.ts';
import { lazyChildLogger } from '../src/http/log-serializers.ts';
import { bearerToken } from '../src/http/plugins/admin-auth.ts';
import { registerFieldNames } from '../src/http/plugins/field-names.ts';
import { registerInputGuard } from '../src/http/plugins/input-guard.ts';
import { presentInvoice } from '../src/http/resources/invoices/presenter.ts';
import { ApiRateLimiter } from '../src/http/rate-limiter.ts';
import { Announcements } from '../src/queue/announcements.ts';
import { HAL } from '../src/http/schemas/common.ts';
import { InvoiceSchema } from '../src/http/resources/invoices/schema.ts';
import { HttpRequestMetrics } from '../src/ops/http-request-metrics.ts';
import { KeyCache } from '../src/services/key-cache.ts';

const BARE_STEPS = ['id', 'key', 'gate', 'guard', 'schema', 'metrics', 'sql', 'wake'];
const WITH = new Set((process.env.BARE_WITH ?? '').split(',').filter(Boolean));
for (const s of WITH) if (!BARE_STEPS.includes(s)) throw new Error(`BARE_WITH: unknown step ${s} (${BARE_STEPS.join(', ')})`);
if (WITH.has('sql') && !WITH.has('key')) throw new Error('BARE_WITH: sql needs key (the scope comes from the key)');

// BARE_IDLE_MS: the budget runs nine of these; idle pools let go soon, within PostgreSQL's max_connections
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 20),
  idleTimeoutMillis: Number(process.env.BARE_IDLE_MS ?? 10_000),
});
const app: FastifyInstance = WITH.has('id')
  ? (Fastify({
      loggerInstance: pino({ level: 'warn' }),
      childLoggerFactory: lazyChildLogger,
      genReqId: (req: import('node:http').IncomingMessage) => {
        const given = req.headers['x-request-id'];
        return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
      },
    } as any) as unknown as FastifyInstance)
  : Fastify({ logger: false });
if (WITH.has('schema')) app.addSchema(InvoiceSchema);

const READ = `select t.id, t.status, t.invoice_number, t.invoice_date::text as invoice_date, t.invoice_duedate::text as invoice_duedate,
    t.total_cents, t.balance_cents, t.customer_id, c.customer_code, c.name as customer_name, d.filename as document
  from invoices t join customers c on c.id = t.customer_id left join documents d on d.id = t.document_id where t.id = $1`;
const INSERT = `insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status)
  values ($1, $2, 'live', $3, $4, $5, $6, 48000, 48000, 'open') returning id, invoice_number`;
// the service's statements (repositories/invoice-repository.ts), as they reach PostgreSQL
const SCOPED_READ = READ.replace('select t.id', 'select t.deleted_at, t.id').replace(
  'where t.id = $1',
  "where t.id = $1 and t.account_id || '' = $2 and t.mode = $3",
);
const CTE_INSERT = `with c as (
    select id, customer_code, name from customers t where t.id = $3 and t.account_id || '' = $2 and t.mode = 'live' and t.deleted_at is null for key share
  ), ins as (
    insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status)
    select $1, $2, 'live', c.id, $4, $5, $6, 48000, 48000, 'open' from c
    on conflict (account_id, mode, invoice_number) where deleted_at is null do nothing
    returning customer_id
  )
  select c.customer_code, c.name from ins join c on c.id = ins.customer_id`;
const WAITING = `select t.id from intake_records t where t.account_id = $1 and t.mode = 'live' and t.status in ('received', 'waiting') and t.deleted_at is null
  and lower(t.match_name) in (lower($2), lower($3))`;

declare module 'fastify' {
  interface FastifyRequest {
    benchScope?: Scope;
  }
}

if (WITH.has('id')) {
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
}
if (WITH.has('key') || WITH.has('gate')) {
  const keys = new KeyCache(30_000);
  const prefix = `iibare${process.pid}`;
  const fast = WITH.has('gate') ? new Redis({ enableOfflineQueue: false }) : undefined;
  const limiter = fast && new ApiRateLimiter(fast, prefix, { max: 1e9, windowMs: 60_000 });
  const announcements = fast && new Announcements(fast, new Redis({ autoResubscribe: false }), prefix);
  announcements?.listen('key-revoked', keys);
  app.addHook('onRequest', async (req, reply) => {
    const key = bearerToken(req.headers.authorization);
    const hash = WITH.has('key') && key !== undefined && keyMode(key) !== undefined ? hashKey(key) : undefined;
    const allowed = await limiter?.consume(hash ? `k:${hash}` : `ip:${req.ip}`);
    if (allowed)
      reply
        .header('x-ratelimit-limit', 1e9)
        .header('x-ratelimit-remaining', allowed.remaining)
        .header('x-ratelimit-reset', Math.ceil(allowed.resetMs / 1000));
    if (!WITH.has('key')) return;
    const trusted = announcements ? announcements.cacheTrusted() : true;
    let scope = trusted && hash ? keys.get(hash) : undefined;
    if (!scope && hash) {
      const since = keys.generation;
      const { rows } = await pool.query({
        name: 'find_key',
        text: 'select k.account_id, k.mode from api_keys k join accounts a on a.id = k.account_id where k.hash = $1 and k.revoked_at is null',
        values: [hash],
      });
      if (rows[0]) keys.set(hash, (scope = { accountId: rows[0].account_id, mode: rows[0].mode }), since);
    }
    if (!scope) return reply.code(401).send({ status: 401 });
    req.benchScope = scope;
  });
}
if (WITH.has('guard')) registerInputGuard(app), registerFieldNames(app);
if (WITH.has('metrics')) {
  const metrics = new HttpRequestMetrics(new Registry(), [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  app.addHook('onResponse', (req, reply, done) => {
    metrics.observe(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

type Body = Record<string, string>;
const schema = WITH.has('schema');
const Params = { type: 'object', properties: { id: { type: 'string', maxLength: 36 } }, required: ['id'] };
const CreateBody = {
  type: 'object',
  properties: Object.fromEntries(
    ['customer', 'invoiceNumber', 'invoiceDate', 'invoiceDuedate', 'invoiceTotal', 'account'].map((k) => [k, { type: 'string', maxLength: 100 }]),
  ),
  required: ['customer', 'invoiceNumber'],
};
const base = (req: { protocol: string; host: string }) => `${req.protocol}://${req.host}`;
const invoiceOf = (r: Record<string, any>, customer = { id: r.customer_id, number: r.customer_code, name: r.customer_name }) => ({
  id: r.id,
  status: r.status,
  invoiceNumber: r.invoice_number,
  invoiceDate: r.invoice_date,
  invoiceDuedate: r.invoice_duedate,
  totalCents: Number(r.total_cents),
  balanceCents: Number(r.balance_cents),
  document: r.document ?? null,
  customer,
});

app.get<{ Params: { id: string } }>(
  '/invoices/:id',
  schema ? { schema: { params: Params, response: { 200: { $ref: 'Invoice#' } } } } : {},
  async (req, reply) => {
    const s = req.benchScope;
    const { rows } = WITH.has('sql')
      ? await pool.query({ name: 'read_scoped', text: SCOPED_READ, values: [req.params.id, s!.accountId, s!.mode] })
      : await pool.query({ name: 'read_invoice', text: READ, values: [req.params.id] });
    if (!rows[0]) return reply.code(404).send({ status: 404 });
    return schema ? reply.type(HAL).send(presentInvoice(base(req), invoiceOf(rows[0]))) : rows[0];
  },
);

// a document's bytes, read whole as node-postgres reads a bytea (the service reads them in pieces)
const CONTENT = 'select o.content from documents t join document_objects o on o.sha256 = t.content_sha256 where t.id = $1';
app.get<{ Params: { id: string } }>('/documents/:id/content', async (req, reply) => {
  const { rows } = await pool.query({ name: 'read_content', text: CONTENT, values: [req.params.id] });
  if (!rows[0]) return reply.code(404).send({ status: 404 });
  return reply.type('application/pdf').send(rows[0].content);
});

let n = 0;
app.post<{ Body: Body }>('/invoices', schema ? { schema: { body: CreateBody, response: { 201: { $ref: 'Invoice#' } } } } : {}, async (req, reply) => {
  const b = req.body;
  const account = req.benchScope?.accountId ?? b.account;
  const values = [`inv_bare${process.pid}_${n++}`, account, b.customer, b.invoiceNumber, '2026-02-01', '2026-03-01'];
  const { rows } = WITH.has('sql')
    ? await pool.query({ name: 'insert_cte', text: CTE_INSERT, values })
    : await pool.query({ name: 'insert_invoice', text: INSERT, values });
  if (!rows[0]) return reply.code(409).send({ status: 409 });
  if (WITH.has('wake')) void pool.query({ name: 'waiting', text: WAITING, values: [account, values[0], b.invoiceNumber] }).catch(() => {});
  if (!schema) return reply.code(201).send(rows[0]);
  const r = {
    id: values[0],
    status: 'open',
    invoice_number: b.invoiceNumber,
    invoice_date: values[4],
    invoice_duedate: values[5],
    total_cents: 48000,
    balance_cents: 48000,
  };
  return reply
    .code(201)
    .type(HAL)
    .send(presentInvoice(base(req), invoiceOf(r, { id: b.customer, number: rows[0].customer_code ?? '', name: rows[0].name ?? '' })));
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const)
  process.on(
    sig,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
