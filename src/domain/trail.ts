// The trail (issue 44): who changed what outside the per-file flow. Pure shapes and rules; the
// table is repositories/trail-repository.ts, the decisions services/trail-service.ts.
import type { Mode } from './scope.ts';

export type TrailActorKind = 'person' | 'api_key' | 'upload_key' | 'operator';
export const TRAIL_ACTOR_KINDS: readonly TrailActorKind[] = ['person', 'api_key', 'upload_key', 'operator'];

export interface TrailActor {
  kind: TrailActorKind;
  /** the person's user id, the upload key's id; null for the API key and the operator */
  id: string | null;
  /** what a reader recognises: the person's e-mail, the key's name, "API key (live)", "operator" */
  label: string;
}

/** Where an entry belongs: one mode of an account, or (mode null) the whole account. */
interface TrailScope {
  readonly accountId: string;
  readonly mode: Mode | null;
}

export interface TrailEntryInput {
  scope: TrailScope;
  actor: TrailActor;
  /** the client's address (after TRUST_PROXY), or null where there is none (the CLI) */
  address: string | null;
  /** what happened, `thing.verb`: `api_key.rotated`, `user.invited`, `import.discarded`, ... */
  action: string;
  /** the id or name of what it happened to */
  target?: string | null;
  detail?: Record<string, unknown>;
}

export interface TrailEntry {
  id: string;
  accountId: string;
  mode: Mode | null;
  at: string;
  actor: TrailActor;
  address: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
}

/** The actions the service records (others may be added by the parts that record them). */
export const TRAIL_ACTIONS = [
  'api_key.rotated',
  'upload_key.created',
  'upload_key.revoked',
  'upload_key.ssh_key_added',
  'upload_key.ssh_key_removed',
  'senders.changed',
  'import.assigned',
  'import.retried',
  'import.discarded',
  'import.released',
  'user.invited',
  'user.removed',
  'user.role_changed',
  'second_factor.enabled',
  'second_factor.disabled',
  'account.disabled',
  'account.enabled',
] as const;

export const ACTION_PATTERN = /^[a-z_]+\.[a-z_]+$/;

// a field whose name says it holds a credential never reaches the table, whatever a caller passes
const SECRET_NAME = /(key|password|secret|token|hash|code|otp|totp|cookie|authorization)$/i;
const SAFE_NAME = /^(keyHint|hint|reasonCode)$/;

/** The detail with every credential-like field dropped, nested objects included. */
export function withoutSecrets(detail: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (SECRET_NAME.test(k) && !SAFE_NAME.test(k)) continue;
    out[k] = v && typeof v === 'object' && !Array.isArray(v) ? withoutSecrets(v as Record<string, unknown>) : v;
  }
  return out;
}
