import { pino, type Logger } from 'pino';

// API keys, passwords and tokens never reach the log, wherever they sit in a logged object.
export const REDACT_PATHS = [
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
  '*.authorization',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

export type { Logger };
