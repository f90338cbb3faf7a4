// A task's time limit counted in its thread's CPU time rather than the clock (Linux, /proc): the
// PDF check threads run at a low priority (PDF_CHECK_PRIORITY) and yield the cores to the
// receiving side, so under an upload flood a task may wait, queued or runnable, far longer than
// it works. That wait is load, not the file: a file is refused as too slow only once its thread
// has spent the budget on it. Each task in flight has a slot in memory shared with the threads,
// where its thread notes its id and its CPU time when it starts the task (pdf-check-thread.mjs).
// Without /proc the limit is the clock's, as before.
import fs from 'node:fs';

const SLOTS = 512;

/** CPU time (user + system) of a thread of this process in ms, from /proc; undefined when unreadable. */
function threadCpuMs(tid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime in ticks of 10 ms (CLK_TCK 100)
  } catch {
    return undefined;
  }
}

const procReadable = (() => {
  try {
    return fs.existsSync(`/proc/${process.pid}/task/${process.pid}/stat`);
  } catch {
    return false;
  }
})();

export class ThreadCpuBudget {
  /** per slot: [tid of the thread that started the task (0: not started), its CPU ms then] */
  readonly shared = procReadable ? new SharedArrayBuffer(SLOTS * 2 * 4) : undefined;
  private readonly slots = this.shared ? new Int32Array(this.shared) : undefined;
  private readonly free = this.slots ? Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i) : [];

  /** `waitLimitMs`: a task watched by its CPU ends anyway after this long on the clock (a thread starved for minutes) */
  constructor(
    private readonly budgetMs: number,
    private readonly waitLimitMs = budgetMs * 20,
  ) {}

  /**
   * Calls `onSpent('cpu')` once the task given `slot` has had budgetMs of its thread's CPU (or,
   * without a slot, budgetMs on the clock: 'clock'), `onSpent('wait')` when it has not but
   * waitLimitMs have passed (the load's doing, not the file's). The returned `end` stops watching
   * and frees the slot.
   */
  watch(onSpent: (why: 'cpu' | 'clock' | 'wait') => void): { slot: number; end: () => void } {
    const slot = this.free.pop() ?? -1;
    const slots = this.slots;
    if (slot >= 0) Atomics.store(slots!, slot * 2, 0);
    const t0 = Date.now();
    let timer: NodeJS.Timeout;
    const check = () => {
      const tid = slot >= 0 ? Atomics.load(slots!, slot * 2) : 0;
      const now = tid ? threadCpuMs(tid) : undefined;
      const used = now === undefined ? undefined : now - Atomics.load(slots!, slot * 2 + 1);
      // no slot, or /proc gone: the clock decides; not started yet: the wait does not count
      if (slot < 0 || (tid && used === undefined)) return onSpent('clock');
      if (used !== undefined && used >= this.budgetMs) return onSpent('cpu');
      if (Date.now() - t0 >= this.waitLimitMs) return onSpent('wait');
      timer = setTimeout(check, Math.max(100, Math.min(this.budgetMs - (used ?? 0), this.waitLimitMs - (Date.now() - t0))));
    };
    timer = setTimeout(check, this.budgetMs);
    return {
      slot,
      end: () => {
        clearTimeout(timer);
        if (slot >= 0) this.free.push(slot);
      },
    };
  }
}
