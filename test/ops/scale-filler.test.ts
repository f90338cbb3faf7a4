// bench:scale's filler (bench/scale/fill.ts) at 10^3: the rows it promises, in the service's own
// tables after the service's migrations, and rows the service can read (a fresh database, dropped).
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fillAccount, fillCounts } from '../../bench/scale/fill.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';

let db: Awaited<ReturnType<typeof createPgDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  db = await createPgDatabase();
  const service = openPostgres(db.url, 2);
  await migrate(service);
  await service.close();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

test('at 10^3 the filler writes the rows it counts, attached files pointing at their invoice and document', async () => {
  await client.query(`insert into accounts (id, name, ftp_username, import_token_live, import_token_test) values ('acc_fill', 'fill', 'fill', 'tl', 'tt')`);
  await client.query(`insert into account_users (id, account_id, email, role) values ('usr_fill', 'acc_fill', 'o@example.com', 'owner')`);
  await client.query(
    `insert into webhooks (id, account_id, mode, url, events, secret) values ('whk_fill', 'acc_fill', 'live', 'https://hooks.example.com/in', '{invoice.paid}', 's')`,
  );
  await fillAccount(client, { accountId: 'acc_fill', webhookId: 'whk_fill', userId: 'usr_fill' }, 1000);
  for (const [table, n] of Object.entries(fillCounts(1000))) {
    const { rows } = await client.query(
      `select count(*)::int as n from ${table} where ${table === 'webhook_deliveries' ? "webhook_id = 'whk_fill'" : "account_id = 'acc_fill'"}`,
    );
    expect({ table, n: rows[0].n }).toEqual({ table, n });
  }
  const { rows } = await client.query(
    `select count(*)::int as n from intake_records r join invoices i on i.id = r.invoice_id and i.document_id = r.document_id join documents d on d.id = r.document_id and d.staged_id = r.id where r.status = 'attached'`,
  );
  expect(rows[0].n).toBe(950);
});
