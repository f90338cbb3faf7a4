// Lists are newest first. `from` is the id of the first item of a page (inclusive); `limit` 1..250.
import { DomainError } from './errors.ts';

export const MAX_LIMIT = 250;
export const DEFAULT_LIMIT = 50;

export interface PageRequest {
  limit: number;
  from?: string;
}

export function parsePageRequest(query: { limit?: unknown; from?: unknown }): PageRequest {
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined && query.limit !== '') {
    const text = String(query.limit).trim();
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
      throw DomainError.invalid(`Field limit must be a whole number from 1 to ${MAX_LIMIT}`, 'limit');
    }
    limit = Number(text);
  }
  if (query.from === undefined || query.from === '') return { limit };
  const from = String(query.from);
  if (from.length > 36 || !/^[A-Za-z0-9_-]+$/.test(from)) throw DomainError.invalid('Field from in wrong format', 'from');
  return { limit, from };
}

export interface Page<T> {
  items: T[];
  /** id of the first item of the next (older) page, if any */
  next?: string;
  /** id of the first item of the previous (newer) page, if any */
  previous?: string;
}

export interface PageLinks {
  previous: { href: string; type: 'application/hal+json' } | null;
  next: { href: string; type: 'application/hal+json' } | null;
}

/** Builds the envelope's links, keeping the list's filters in every href. */
export function pageLinks(baseUrl: string, page: Page<unknown>, limit: number, filters: Record<string, string | undefined> = {}): PageLinks {
  const link = (from: string) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v !== undefined) q.set(k, v);
    q.set('from', from);
    q.set('limit', String(limit));
    return { href: `${baseUrl}?${q}`, type: 'application/hal+json' as const };
  };
  return { previous: page.previous ? link(page.previous) : null, next: page.next ? link(page.next) : null };
}
