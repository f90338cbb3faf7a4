// What the API logs about a request. A client that puts its key in the URL by mistake
// (?api_key=live_...) must not get it written to the log: key-shaped text is masked.
import type { FastifyRequest } from 'fastify';

const KEY_LIKE = /\b(live|test|adm)_[0-9A-Za-z]{16,}/g;

export const maskKeys = (text: string) => text.replace(KEY_LIKE, '$1_[redacted]');

export const requestSerializers = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: maskKeys(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};

type Logger = import('pino').Logger;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * Fastify's per-request child logger, made only when something is logged: building a pino child
 * serializes its bindings at once, which costs every request a few microseconds even when the
 * level (warn in production) lets nothing through.
 */
export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>, opts: Record<string, unknown>): Logger {
  if (opts && Object.keys(opts).length) return parent.child(bindings, opts);
  let real: Logger | undefined;
  const get = () => (real ??= parent.child(bindings));
  const lazy: Record<string, unknown> = {
    child: (b: Record<string, unknown>, o?: Record<string, unknown>) => get().child(b, o),
    isLevelEnabled: (l: string) => parent.isLevelEnabled(l),
  };
  for (const level of LEVELS) {
    lazy[level] = (...args: unknown[]) => {
      if (parent.isLevelEnabled(level)) (get()[level] as (...a: unknown[]) => void)(...args);
    };
  }
  Object.defineProperty(lazy, 'level', { get: () => (real ?? parent).level, set: (v: string) => (get().level = v) });
  return lazy as unknown as Logger;
}
