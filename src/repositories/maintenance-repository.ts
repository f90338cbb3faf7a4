import type { Queryable } from '../db/database.ts';

export const maintenanceRepository = {
  /** Deletes test-mode data created before the cutoff, children first. Returns rows deleted per table. */
  async purgeTestData(q: Queryable, olderThanDays: number): Promise<Record<string, number>> {
    const cutoff = `now() - make_interval(days => $1::int)`;
    const oldInvoices = `select id from invoices where mode = 'test' and created_at < ${cutoff}`;
    const counts: Record<string, number> = {};
    const run = async (name: string, sql: string) => {
      counts[name] = (await q.query(`${sql} returning 1 as x`, [olderThanDays])).length;
    };
    // intake files (staged bytes and, by cascade, their records) by the time they were received
    await run('intake', `delete from intake_staging where mode = 'test' and received_at < ${cutoff}`);
    await run('payments', `delete from payments where mode = 'test' and invoice_id in (${oldInvoices})`);
    await run('documents', `delete from documents where mode = 'test' and invoice_id in (${oldInvoices})`);
    await run('invoices', `delete from invoices where mode = 'test' and created_at < ${cutoff}`);
    await run('customers', `delete from customers c where mode = 'test' and created_at < ${cutoff} and not exists (select 1 from invoices i where i.customer_id = c.id)`);
    return counts;
  },
};
