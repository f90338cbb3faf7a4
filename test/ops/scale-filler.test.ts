// bench:scale's filler (bench/scale/fill.ts) at 10^4: the rows it promises, in the service's own
// tables after the service's migrations, and rows the service can read (a fresh database, dropped).
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fillAccount, fillCounts } from '../../bench/scale/fill.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';

// the tables without an account_id: how their rows are the account's
const OWNED_BY: Record<string, string> = { webhook_deliveries: "webhook_id = 'whk_fill'", document_objects: 'true' };

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

test('at 10^4 the filler writes the rows it counts, attached files pointing at their invoice and document', async () => {
  await client.query(`insert into accounts (id, name, ftp_username, import_token_live, import_token_test) values ('acc_fill', 'fill', 'fill', 'tl', 'tt')`);
  await client.query(`insert into account_users (id, account_id, email, role) values ('usr_fill', 'acc_fill', 'o@example.com', 'owner')`);
  await client.query(
    `insert into webhooks (id, account_id, mode, url, events, secret) values ('whk_fill', 'acc_fill', 'live', 'https://hooks.example.com/in', '{invoice.paid}', 's')`,
  );
  await fillAccount(client, { accountId: 'acc_fill', webhookId: 'whk_fill', userId: 'usr_fill' }, 10_000);
  for (const [table, n] of Object.entries(fillCounts(10_000))) {
    const { rows } = await client.query(`select count(*)::int as n from ${table} where ${OWNED_BY[table] ?? "account_id = 'acc_fill'"}`);
    expect({ table, n: rows[0].n }).toEqual({ table, n });
  }
  const { rows } = await client.query(
    `select count(*)::int as n from intake_records r join invoices i on i.id = r.invoice_id and i.document_id = r.document_id join documents d on d.id = r.document_id and d.staged_id = r.id where r.status = 'attached'`,
  );
  expect(rows[0].n).toBe(9500);

  // every pointer names an object; a failed file keeps its bytes within the retention (14 days) and is marked dropped past it
  const pointers = await client.query(
    `select (select count(*)::int from intake_staging s where s.content_sha256 is not null and not exists (select 1 from document_objects o where o.sha256 = s.content_sha256)) as dangling,
            (select count(*)::int from documents d join intake_staging s on s.id = d.staged_id where d.content_sha256 is distinct from s.content_sha256 or d.content_sha256 is null) as unshared`,
  );
  expect(pointers.rows[0]).toEqual({ dangling: 0, unshared: 0 });
  // 10^4 rows 600 s apart (69 days): the newest 2,016 are younger than 14 days, 101 of them failed
  // (every 20th row): those keep their bytes; the 399 older ones are marked dropped, without bytes
  const failed = await client.query(
    `select s.content_sha256 is not null as kept, r.bytes_dropped_at is not null as marked, count(*)::int as n,
            bool_and(r.updated_at > now() - interval '14 days') as young
       from intake_records r join intake_staging s on s.id = r.id where r.status = 'failed' and r.mode = 'live' group by 1, 2 order by 1, 2`,
  );
  expect(failed.rows).toEqual([
    { kept: false, marked: true, n: 399, young: false },
    { kept: true, marked: false, n: 101, young: true },
  ]);
});
