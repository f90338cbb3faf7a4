// Who may send an account's mail, per mode (domain/sender-policy.ts): read by the mail pipeline for
// each message, set by owners (GET/PUT /v2/account/senders, the dashboard's settings), and
// extended when an owner releases a held file and adds its sender in the same step. Remembered by
// each node while it hears every node's announcements of changes, as disabled accounts are.
import type { Database } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import { isListed, normaliseSenders, parseSenderPolicy, type SenderPolicy, type SenderPolicyMode } from '../domain/sender-policy.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { AnnouncedMemo } from './announced-memo.ts';

export class SenderPolicyService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'senderPolicies'>,
    /** MAIL_SENDER_POLICY_DEFAULT: the policy of an account that never chose one */
    private readonly fallback: SenderPolicyMode,
    /** each node's memory of the policies (every received message asks), told of changes */
    private readonly memo?: AnnouncedMemo<SenderPolicy>,
  ) {}

  get(scope: Scope): Promise<SenderPolicy> {
    return this.memo ? this.memo.get(keyOf(scope), () => this.read(scope)) : this.read(scope);
  }

  /** Replaces the scope's policy and list; `invalid` (field policy or senders) for anything else. */
  async set(scope: Scope, input: { policy: unknown; senders?: unknown }): Promise<SenderPolicy> {
    const p: SenderPolicy = { policy: parseSenderPolicy(input.policy), senders: normaliseSenders(input.senders ?? []) };
    await this.changing(scope, () => this.repos.senderPolicies.save(this.db, scope, p));
    return p;
  }

  /** Puts one address on the list (an owner's "release and add the sender"); nothing when it is listed already. */
  async addSender(scope: Scope, address: string): Promise<void> {
    const [sender] = normaliseSenders([address]);
    if (isListed((await this.read(scope)).senders, sender)) return;
    await this.changing(scope, () => this.repos.senderPolicies.addSender(this.db, scope, sender, this.fallback));
  }

  private async read(scope: Scope): Promise<SenderPolicy> {
    return (await this.repos.senderPolicies.find(this.db, scope)) ?? { policy: this.fallback, senders: [] };
  }

  private changing<T>(scope: Scope, change: () => Promise<T>): Promise<T> {
    return this.memo ? this.memo.changing(keyOf(scope), change) : change();
  }
}

const keyOf = (scope: Scope) => `${scope.accountId}:${scope.mode}`;
