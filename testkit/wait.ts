// Waiting for a condition instead of sleeping: one polling loop for tests and benchmarks alike
// (benchmarks run outside vitest, so vi.waitFor is not theirs).

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe` every `everyMs` until `ok` accepts its value, and returns that value; when `ms`
 * pass first, returns the last value, for the caller's assertion to show. A probe that throws
 * counts as not ok when `tolerateErrors` is set (a server still starting); otherwise it throws.
 */
export async function pollFor<T>(
  probe: () => T | Promise<T>,
  ok: (value: T) => boolean,
  { ms, everyMs = 50, tolerateErrors = false }: { ms: number; everyMs?: number; tolerateErrors?: boolean },
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    let value: T | undefined;
    let failure: unknown;
    try {
      value = await probe();
      if (ok(value)) return value;
    } catch (e) {
      if (!tolerateErrors) throw e;
      failure = e;
    }
    if (Date.now() > end) {
      if (failure !== undefined) throw failure;
      return value as T;
    }
    await sleep(everyMs);
  }
}

/** Waits until `check` says yes; throws naming `what` after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string, everyMs = 25): Promise<void> {
  if (!(await pollFor(check, Boolean, { ms, everyMs }))) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}
