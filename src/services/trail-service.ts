// The trail (issue 44): records who changed what outside the per-file flow, and reads it back for
// owners (GET /v2/account/trail, the dashboard) and operators (GET /admin/accounts/{id}/trail).
// Recording only adds rows: there is no path here to change or delete one, and the table's
// trigger refuses it anyway; the retention purge is the one delete, of entries past their time.
import type { Database, Queryable } from '../db/database.ts';
import { currentUnit, type UnitDatabase } from '../db/units.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import { ACTION_PATTERN, TRAIL_ACTOR_KINDS, withoutSecrets, type TrailEntry, type TrailEntryInput } from '../domain/trail.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { TrailFilter } from '../repositories/trail-repository.ts';

/** The most rows one CSV export holds (a filter narrows it). */
const TRAIL_EXPORT_MAX = 10_000;
const PURGE_BATCH = 5_000;

export class TrailService {
  constructor(
    private readonly db: Database & Partial<Pick<UnitDatabase, 'begin'>>,
    private readonly repos: Pick<Repositories, 'trail'>,
    /** how long an entry is kept (TRAIL_RETENTION_DAYS) */
    private readonly retentionDays: number,
  ) {}

  /**
   * Records one change. Inside a request's unit of work (or given `tx`) it commits with the change
   * it reports, so that a change never lands without its entry, nor an entry without its change.
   */
  async record(entry: TrailEntryInput, tx?: Queryable): Promise<TrailEntry> {
    if (!ACTION_PATTERN.test(entry.action)) throw new Error(`trail action ${entry.action} is not thing.verb`);
    if (!TRAIL_ACTOR_KINDS.includes(entry.actor.kind)) throw new Error(`trail actor kind ${entry.actor.kind} is unknown`);
    return this.repos.trail.insert(tx ?? this.db, {
      id: newId('trl'),
      accountId: entry.scope.accountId,
      mode: entry.scope.mode,
      actorKind: entry.actor.kind,
      actorId: entry.actor.id,
      actorLabel: entry.actor.label.slice(0, 200),
      address: entry.address,
      action: entry.action,
      target: entry.target ?? null,
      detail: withoutSecrets(entry.detail ?? {}),
    });
  }

  /**
   * Makes a change and records its entry in one transaction (a unit of work, db/units.ts): the
   * services' statements and the entry commit together, or neither does; what tells other nodes
   * or queues of the change waits for that commit (whenCommitted). Inside a request's unit
   * (Idempotency-Key) it joins that one. `entry` sees the change's result; undefined: no entry.
   */
  async recorded<T>(change: () => Promise<T>, entry: (result: T) => TrailEntryInput | undefined): Promise<T> {
    const write = async () => {
      const result = await change();
      const e = entry(result);
      if (e) await this.record(e);
      return result;
    };
    if (currentUnit()) return write();
    if (!this.db.begin) throw new Error('the trail needs a database with units of work (withUnits)');
    const unit = await this.db.begin();
    try {
      const result = await unit.run(write);
      await unit.commit();
      return result;
    } catch (e) {
      await unit.rollback().catch(() => {});
      throw e;
    }
  }

  async page(filter: TrailFilter, req: PageRequest): Promise<Page<TrailEntry>> {
    return this.repos.trail.page(this.db, filter, req);
  }

  /** The filter's entries for a CSV export, newest first, at most TRAIL_EXPORT_MAX. */
  async export(filter: TrailFilter): Promise<TrailEntry[]> {
    return this.repos.trail.all(this.db, filter, TRAIL_EXPORT_MAX);
  }

  /** Deletes the entries older than the retention, in batches; how many went. */
  async purgeExpired(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.retentionDays * 86_400_000);
    let total = 0;
    for (;;) {
      const n = await this.db.transaction((tx) => this.repos.trail.purgeBefore(tx, before, PURGE_BATCH));
      total += n;
      if (n < PURGE_BATCH) return total;
    }
  }
}

/** Reads a filter's query fields (`action`, `actor`, `since`, `until`): 400 with `field` when wrong. */
export function parseTrailQuery(q: Record<string, unknown>): Omit<TrailFilter, 'accountId' | 'mode'> {
  const text = (name: string) => {
    const v = q[name];
    return v === undefined || v === '' ? undefined : String(v);
  };
  const out: Omit<TrailFilter, 'accountId' | 'mode'> = {};
  const action = text('action');
  if (action !== undefined) {
    if (!/^[a-z_]+(\.[a-z_]+)?$/.test(action)) throw DomainError.invalid('Field action must be an action (user.invited) or its first part (user)', 'action');
    out.action = action;
  }
  const actor = text('actor');
  if (actor !== undefined) {
    if (!(TRAIL_ACTOR_KINDS as readonly string[]).includes(actor))
      throw DomainError.invalid(`Field actor must be one of ${TRAIL_ACTOR_KINDS.join(', ')}`, 'actor');
    out.actorKind = actor as TrailFilter['actorKind'];
  }
  for (const name of ['since', 'until'] as const) {
    const v = text(name);
    if (v === undefined) continue;
    const day = /^\d{4}-\d{2}-\d{2}$/.test(v);
    const d = new Date(day && name === 'until' ? `${v}T23:59:59.999Z` : v);
    if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime()) || (day && d.toISOString().slice(0, 10) !== v)) {
      throw DomainError.invalid(`Field ${name} must be a date (2026-12-01) or a time (2026-12-01T10:00:00Z)`, name);
    }
    out[name] = d;
  }
  return out;
}
