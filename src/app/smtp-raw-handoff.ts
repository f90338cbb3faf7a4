// The raw messages the SMTP receiver committed, kept briefly for the mail worker of the same
// process (the default deployment runs every role in one process): its job then need not read
// the message back from smtp_messages (a statement whose answer is the whole message, one of the
// ~15 statements a message costs on bench:smtp). Only an optimisation: the database holds every
// committed message, and a job that misses here (another process, evicted, restarted, the
// reconciler's) reads it from there.
import { HAND_OFF_BYTES, StagedBytesCache } from '../intake/staged-bytes-cache.ts';
import type { Container } from './container.ts';

const caches = new WeakMap<Container, StagedBytesCache>();

/** The container's cache of committed raw messages (made by whichever role asks first). */
export function smtpRawHandoff(c: Container): StagedBytesCache {
  let cache = caches.get(c);
  if (!cache) {
    cache = new StagedBytesCache(HAND_OFF_BYTES);
    caches.set(c, cache);
  }
  return cache;
}
