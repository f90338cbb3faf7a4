// What the API logs about a request. A client that puts its key in the URL by mistake
// (?api_key=live_...) must not get it written to the log: key-shaped text and the installation's
// secrets are masked (platform/logger.ts).
import type { FastifyRequest } from 'fastify';

// The dashboard's one-time links carry their token in the path (an invite, a password reset).
const LINK_TOKEN = /^(\/dashboard\/(?:invite|reset)\/)[^/?#]+/;

export const requestSerializers = (mask: (text: string) => string) => ({
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: mask(req.url).replace(LINK_TOKEN, '$1[redacted]'),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
});

type Logger = import('pino').Logger;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify's per-request child logger, made only when something is logged: building a pino child
 * serializes its bindings at once, which costs every request a few microseconds even when the
 * level (warn in production) lets nothing through. Methods live on the prototype, so a request
 * allocates one small object.
 */
class LazyChild {
  private real?: Logger;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
  ) {}
  private get logger(): Logger {
    return (this.real ??= this.parent.child(this.bindings));
  }
  private log(level: Level, args: unknown[]): void {
    if (this.parent.isLevelEnabled(level)) (this.logger[level] as (...a: unknown[]) => void)(...args);
  }
  fatal(...args: unknown[]) {
    this.log('fatal', args);
  }
  error(...args: unknown[]) {
    this.log('error', args);
  }
  warn(...args: unknown[]) {
    this.log('warn', args);
  }
  info(...args: unknown[]) {
    this.log('info', args);
  }
  debug(...args: unknown[]) {
    this.log('debug', args);
  }
  trace(...args: unknown[]) {
    this.log('trace', args);
  }
  silent() {}
  child(bindings: Record<string, unknown>, opts?: Record<string, unknown>) {
    return this.logger.child(bindings, opts);
  }
  isLevelEnabled(level: string) {
    return this.parent.isLevelEnabled(level);
  }
  get level() {
    return (this.real ?? this.parent).level;
  }
  set level(v: string) {
    this.logger.level = v;
  }
}

export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>, opts: Record<string, unknown>): Logger {
  if (opts && Object.keys(opts).length) return parent.child(bindings, opts);
  return new LazyChild(parent, bindings) as unknown as Logger;
}
