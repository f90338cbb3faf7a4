import { hash } from 'node:crypto';
import { randomToken } from './ids.ts';
import type { Mode } from './scope.ts';

// Keys carry 40 random base62 characters (about 238 bits), so a fast SHA-256 is a sound way to
// store them: nothing can be guessed from the hash, and verifying costs microseconds per request.
export const generateKey = (mode: Mode) => `${mode}_${randomToken(40)}`;
export const hashKey = (key: string) => hash('sha256', key, 'hex'); // one-shot: a third of createHash's cost
/** What a page may show of a key: its prefix and first and last 4 characters (32 of its 238 random bits) */
export const keyHint = (key: string) => `${key.slice(0, 9)}...${key.slice(-4)}`;
const KEY_PATTERN = /^(live|test)_[0-9A-Za-z]{40}$/;
export const keyMode = (key: string): Mode | undefined => (KEY_PATTERN.test(key) ? (key.slice(0, 4) as Mode) : undefined);
