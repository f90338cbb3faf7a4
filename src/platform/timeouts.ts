// The two ways the service waits for something that may never answer (Redis away, a peer gone):
// give up with an error, or just learn whether it finished in time.

/** Resolves or rejects as `p` does, or rejects with `message` once `ms` have passed. */
export function withTimeout<T>(p: Promise<T>, ms: number, message = `no answer within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Waits for `p` until the deadline (epoch ms): true when it settled in time, either way. */
export async function settledBefore(p: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
