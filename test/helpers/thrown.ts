/** The error `fn` throws, which must be a `type`: another error, or none, fails the test. */
export function thrown<E extends Error>(fn: () => unknown, type: new (...args: any[]) => E): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}`);
}
