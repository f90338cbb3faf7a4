// What every resource's presenter shares: the HAL self link and the list envelope.
import { HAL } from './schemas/common.ts';
import { type Page, pageLinks } from '../domain/pagination.ts';

export const self = (base: string, path: string) => ({ self: { href: `${base}${path}`, type: HAL } as const });

/** The list envelope: `<key>: [...]`, `count`, `links.previous/next`. */
export function envelope<T, R>(
  base: string,
  path: string,
  key: string,
  page: Page<T>,
  limit: number,
  present: (base: string, item: T) => R,
  filters: Record<string, string | undefined> = {},
) {
  return { [key]: page.items.map((i) => present(base, i)), count: page.items.length, links: pageLinks(`${base}${path}`, page, limit, filters) };
}
