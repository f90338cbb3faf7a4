import { pino, type Logger } from 'pino';

// API keys, passwords and tokens never reach the log, wherever they sit in a logged object.
const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'password',
  'pass',
  'key',
  'liveKey',
  'testKey',
  'token',
  '*.password',
  '*.pass',
  '*.key',
  '*.liveKey',
  '*.testKey',
  '*.token',
  'secret',
  '*.secret',
  '*.authorization',
];

// Key-shaped text anywhere in a logged string (a key in a URL, a key typed into the FTP user
// field), also percent-encoded (live%5F...) as clients put it in query strings.
const KEY_LIKE = /\b(live|test|adm)(_|%5F)[0-9A-Za-z]{16,}/gi;

/** Masks key-shaped text and the given secrets (e.g. an operator-chosen ADMIN_TOKEN, plain or URL-encoded). */
export function secretMasker(secrets: (string | undefined)[] = []): (text: string) => string {
  const literals = [...new Set(secrets.filter((s): s is string => !!s && s.length >= 8).flatMap((s) => [s, encodeURIComponent(s)]))];
  return (text) => {
    let out = text.replace(KEY_LIKE, '$1_[redacted]');
    for (const s of literals) if (out.includes(s)) out = out.split(s).join('[redacted]');
    return out;
  };
}

/** Masks string values of a logged object, two levels deep (where our log calls put them). */
function maskObject(obj: Record<string, unknown>, mask: (s: string) => string, depth = 0): Record<string, unknown> {
  let out = obj;
  for (const [k, v] of Object.entries(obj)) {
    let masked = v;
    if (typeof v === 'string') masked = mask(v);
    else if (depth < 1 && v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype)
      masked = maskObject(v as Record<string, unknown>, mask, depth + 1);
    if (masked !== v) out = { ...out, [k]: masked };
  }
  return out;
}

export interface LoggerOptions {
  /** secrets of this installation to mask wherever they appear (ADMIN_TOKEN, METRICS_TOKEN) */
  secrets?: (string | undefined)[];
}

export function createLogger(level: string, destination?: pino.DestinationStream, opts: LoggerOptions = {}): Logger {
  const mask = secretMasker(opts.secrets);
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (obj) => maskObject(obj, mask) },
      hooks: {
        logMethod(args, method) {
          const i = args.findIndex((a) => typeof a === 'string');
          if (i >= 0) args[i] = mask(args[i] as string);
          method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

/**
 * Where the service logs: human-readable lines (pino-pretty, in this process) when stdout is a
 * terminal, JSON lines (for log collectors) otherwise.
 */
export async function logDestination(): Promise<pino.DestinationStream | undefined> {
  if (!process.stdout.isTTY) return undefined;
  const { default: pretty } = await import('pino-pretty');
  // synchronous: the last lines before process.exit are not lost
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,startUp' });
}

export type { Logger };
