// The benchmark's baseline: a bare Fastify + pg server that reads the same invoice row the
// service reads (same join, a named prepared statement as the service uses) and inserts an
// invoice with one prepared statement, and reads a document's bytes, with nothing else: no auth,
// no limiter, no scope. It uses pg as it comes, as a user's bare handler would.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });
const app = Fastify({ logger: false });

const READ = `select t.id, t.status, t.invoice_number, t.invoice_date::text as invoice_date, t.invoice_duedate::text as invoice_duedate,
    t.total_cents, t.balance_cents, t.customer_id, c.customer_code, c.name as customer_name, d.filename as document
  from invoices t join customers c on c.id = t.customer_id left join documents d on d.id = t.document_id where t.id = $1`;
const INSERT = `insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status)
  values ($1, $2, 'live', $3, $4, $5, $6, 48000, 48000, 'open') returning id, invoice_number`;

app.get<{ Params: { id: string } }>('/invoices/:id', async (req, reply) => {
  const { rows } = await pool.query({ name: 'read_invoice', text: READ, values: [req.params.id] });
  if (!rows[0]) return reply.code(404).send({ status: 404 });
  return rows[0];
});

// a document's bytes, read whole as node-postgres reads a bytea (the service reads them in pieces)
const CONTENT = 'select coalesce(t.content, s.content) as content from documents t left join intake_staging s on s.id = t.staged_id where t.id = $1';
app.get<{ Params: { id: string } }>('/documents/:id/content', async (req, reply) => {
  const { rows } = await pool.query({ name: 'read_content', text: CONTENT, values: [req.params.id] });
  if (!rows[0]) return reply.code(404).send({ status: 404 });
  return reply.type('application/pdf').send(rows[0].content);
});

let n = 0;
app.post<{ Body: Record<string, string> }>('/invoices', async (req, reply) => {
  const b = req.body;
  const values = [`inv_bare${process.pid}_${n++}`, b.account, b.customer, b.invoiceNumber, '2026-02-01', '2026-03-01'];
  const { rows } = await pool.query({ name: 'insert_invoice', text: INSERT, values });
  return reply.code(201).send(rows[0]);
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
