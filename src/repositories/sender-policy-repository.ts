// The SQL of who may send an account's mail, per account and mode (account_sender_policies).
import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import type { SenderPolicy, SenderPolicyMode } from '../domain/sender-policy.ts';

interface PolicyRow {
  policy: SenderPolicyMode;
  senders: string[];
}

export class SenderPolicyRepository {
  /** The scope's saved choice; undefined when the account never made one. */
  async find(q: Queryable, scope: Scope): Promise<SenderPolicy | undefined> {
    const rows = await q.query<PolicyRow>('select policy, senders from account_sender_policies where account_id = $1 and mode = $2', [
      scope.accountId,
      scope.mode,
    ]);
    return rows[0] && { policy: rows[0].policy, senders: rows[0].senders ?? [] };
  }

  async save(q: Queryable, scope: Scope, p: SenderPolicy): Promise<void> {
    await q.query(
      `insert into account_sender_policies (account_id, mode, policy, senders) values ($1, $2, $3, $4::text[])
       on conflict (account_id, mode) do update set policy = excluded.policy, senders = excluded.senders, updated_at = now()`,
      [scope.accountId, scope.mode, p.policy, p.senders],
    );
  }

  /** Adds one sender, keeping the rest (a row for an account that never chose gets `fallback`). */
  async addSender(q: Queryable, scope: Scope, sender: string, fallback: SenderPolicyMode): Promise<void> {
    await q.query(
      `insert into account_sender_policies (account_id, mode, policy, senders) values ($1, $2, $3, array[$4::text])
       on conflict (account_id, mode) do update
         set senders = (select array_agg(distinct s order by s) from unnest(account_sender_policies.senders || array[$4::text]) as s), updated_at = now()`,
      [scope.accountId, scope.mode, fallback, sender],
    );
  }
}
