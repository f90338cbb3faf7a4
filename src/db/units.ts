// Units of work. `UnitOfWork.transaction()` is every service's: one transaction in which each
// repository writes its own tables (the transaction client is handed to each), and the
// participants (the event outbox: services/event-outbox.ts) add their rows and what must wait for
// the commit. A request's unit (`Unit`) is one database transaction that spans a whole request
// (an Idempotency-Key's claim, the request's effects, its stored response), opened and committed
// by different hooks. While code runs inside a unit (AsyncLocalStorage), the database handed to
// every service sends its queries into the unit's transaction (a service's transaction becomes a
// savepoint of it): services stay as they are, and commit together or not at all. Work that must
// wait for the commit (queueing a job, waking a dispatcher) is deferred with afterCommit(); a crash
// before it runs is covered by the reconcilers, as for any lost enqueue.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, Queryable, QueryOptions, Row, Transaction } from './database.ts';

interface Context {
  unit: Unit;
  /** inside a statement sequence of the unit already holding its turn (a nested transaction) */
  inside: boolean;
}

const als = new AsyncLocalStorage<Context>();
const ROLLBACK = Symbol('rollback');

export class Unit {
  private turn: Promise<unknown> = Promise.resolve();
  private savepoints = 0;
  private readonly deferred: (() => unknown)[] = [];
  private finished = false;

  constructor(
    private readonly tx: Transaction,
    private readonly end: (outcome: 'commit' | 'rollback') => Promise<void>,
    private readonly onDeferredError: (err: unknown) => void,
  ) {}

  get open(): boolean {
    return !this.finished;
  }

  /** Runs `fn` (and everything it starts) inside this unit. */
  run<T>(fn: () => T): T {
    return als.run({ unit: this, inside: false }, fn);
  }

  /** Runs after the commit; dropped by a rollback. */
  afterCommit(fn: () => unknown): void {
    this.deferred.push(fn);
  }

  /**
   * One statement, or a nested transaction, in its own savepoint: a refused statement (a unique
   * violation a service expects and handles) undoes itself, not the whole request. Statements
   * take turns, so two concurrent ones cannot interleave their savepoints.
   */
  async step<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const ctx = als.getStore();
    if (ctx?.unit === this && ctx.inside) return fn(this.tx);
    const mine = this.turn.then(async () => {
      const name = `u${++this.savepoints}`;
      await this.tx.query(`savepoint ${name}`);
      try {
        const result = await als.run({ unit: this, inside: true }, () => fn(this.tx));
        await this.tx.query(`release savepoint ${name}`);
        return result;
      } catch (e) {
        await this.tx.query(`rollback to savepoint ${name}`).catch(() => {});
        throw e;
      }
    });
    this.turn = mine.catch(() => {});
    return mine;
  }

  /** Statements of the unit itself (the claim), without a savepoint. */
  query<T extends Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]> {
    return this.tx.query<T>(sql, params, opts);
  }

  async commit(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.turn;
    await this.end('commit');
    for (const fn of this.deferred.splice(0)) {
      try {
        await fn();
      } catch (err) {
        this.onDeferredError(err);
      }
    }
  }

  async rollback(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.deferred.length = 0;
    await this.turn;
    await this.end('rollback');
  }
}

/** The unit the calling code runs in, if any. */
export const currentUnit = (): Unit | undefined => {
  const u = als.getStore()?.unit;
  return u?.open ? u : undefined;
};

/** Runs `fn` after the current unit commits, or now when there is none. */
export function afterCommit(fn: () => unknown): void {
  const unit = currentUnit();
  if (unit) unit.afterCommit(fn);
  else void fn();
}

/**
 * Runs `fn` once the current unit commits (dropped by its rollback), or now, awaited, when there
 * is none: what tells other nodes or processes of a change (a revocation's second announcement, a
 * queued job) must not reach them before they can read the change.
 */
export async function whenCommitted(fn: () => unknown): Promise<void> {
  const unit = currentUnit();
  if (unit) unit.afterCommit(fn);
  else await fn();
}

export interface UnitDatabase extends Database {
  /** Opens a unit: a transaction held open until commit() or rollback(). */
  begin(): Promise<Unit>;
}

/**
 * The database every service gets: outside a unit it is `db`; inside one, its queries and
 * transactions go into the unit's transaction (each in a savepoint).
 */
export function withUnits(db: Database, onDeferredError: (err: unknown) => void = () => {}): UnitDatabase {
  return {
    kind: db.kind,
    query<T extends Row>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const unit = currentUnit();
      return unit ? unit.step((tx) => tx.query<T>(sql, params, opts)) : db.query<T>(sql, params, opts);
    },
    transaction<T>(fn: (tx: Transaction) => Promise<T>) {
      const unit = currentUnit();
      return unit ? unit.step(fn) : db.transaction(fn);
    },
    close: () => db.close(),
    begin() {
      return new Promise<Unit>((resolve, reject) => {
        let decide!: (outcome: 'commit' | 'rollback') => void;
        const decided = new Promise<'commit' | 'rollback'>((r) => (decide = r));
        let started = false;
        const done = db.transaction(async (tx) => {
          started = true;
          resolve(new Unit(tx, end, onDeferredError));
          if ((await decided) === 'rollback') throw ROLLBACK;
        });
        const end = async (outcome: 'commit' | 'rollback') => {
          decide(outcome);
          await done.catch((e) => {
            if (e !== ROLLBACK) throw e;
          });
        };
        // the transaction could not start (the database is away)
        done.catch((e) => !started && reject(e));
      });
    },
  };
}

/** A service's transaction: its statements, and what must wait for its commit. */
export interface UnitTransaction extends Queryable {
  /** Runs once the transaction commits (inside a request's unit, once that commits); dropped by a rollback. */
  afterCommit(fn: () => unknown): void;
}

/** The unit of work of every service (see the top of this file); `db` is the database of withUnits. */
export class UnitOfWork {
  constructor(private readonly db: Database) {}

  /** Runs fn in one transaction: it commits when fn resolves, rolls back when it throws; then what it deferred runs. */
  async transaction<T>(fn: (tx: UnitTransaction) => Promise<T>): Promise<T> {
    const deferred: (() => unknown)[] = [];
    const result = await this.db.transaction((tx) =>
      fn({
        query: <R extends Row>(sql: string, params?: unknown[], opts?: QueryOptions) => tx.query<R>(sql, params, opts),
        afterCommit: (f) => void deferred.push(f),
      }),
    );
    for (const f of deferred) await whenCommitted(f);
    return result;
  }
}
