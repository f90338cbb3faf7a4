// The sender checks' DNS answers, kept for a while (DNS_CACHE_MS) per process. An MX gets mail
// from the same few senders over and over, and each message asks the same SPF, DKIM and DMARC
// records again. Measured on bench:smtp (2026-12-02): the machine's resolver answered some of
// the TXT queries only after a second, so 16 checks at once took a second each (p50) and held
// the receiver at 17 messages/s whatever else it did (docs/mail.md). An answer
// and a "no such record" (ENOTFOUND, ENODATA) are kept, as any caching resolver keeps them; a
// failure (timeout, SERVFAIL, refused) never is, so the next message asks again. Look-ups of the
// same record at once share one query. Node's resolver does not give TXT records' TTLs, so the
// time is ours: short (a minute by default) beside the hours such records usually live.

export type DnsResolve<T = unknown> = (name: string, rrtype: string) => Promise<T>;

export interface DnsCacheSettings {
  /** how long an answer is kept; 0: every look-up goes to the resolver */
  ttlMs: number;
  /** answers kept at most (the oldest goes first) */
  maxEntries?: number;
  now?: () => number;
}

/** The answers that say the record does not exist: as much an answer as a record. */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA']);

interface Entry<T> {
  /** Infinity while the query is under way */
  until: number;
  answer: Promise<T>;
}

function copyError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  return Object.assign(new Error(err.message), err);
}

/** `resolve` with its answers kept; each caller gets a copy (mailauth's checks may change the lists they get). */
export function cachedResolver<T>(resolve: DnsResolve<T>, settings: DnsCacheSettings): DnsResolve<T> {
  const { ttlMs, maxEntries = 10_000, now = Date.now } = settings;
  if (ttlMs <= 0) return resolve;
  const entries = new Map<string, Entry<T>>();
  return (name, rrtype) => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    let entry = entries.get(key);
    if (entry && entry.until <= now()) {
      entries.delete(key);
      entry = undefined;
    }
    if (!entry) {
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      const made: Entry<T> = { until: Infinity, answer: Promise.resolve().then(() => resolve(name, rrtype)) };
      entry = made;
      entries.set(key, made);
      made.answer.then(
        () => void (made.until = now() + ttlMs),
        (err: NodeJS.ErrnoException) => {
          if (NOT_FOUND.has(err?.code ?? '')) made.until = now() + ttlMs;
          else if (entries.get(key) === made) entries.delete(key);
        },
      );
    }
    return entry.answer.then(
      (value) => structuredClone(value),
      (err) => {
        throw copyError(err);
      },
    );
  };
}
