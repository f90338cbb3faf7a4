import type { Queryable } from '../db/database.ts';

export class InstallationRepository {
  /** This installation's id, created by the migration that made the table. */
  async id(q: Queryable): Promise<string> {
    return (await q.query<{ id: string }>('select id from installation'))[0].id;
  }
}
