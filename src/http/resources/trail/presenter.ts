// The trail entry resource as the API shows it: as JSON (present), and as CSV (RFC 4180, trailCsv):
// one row per entry, a header row, every field quoted when it must be; a field that a spreadsheet
// would run as a formula (= + - @ at its start) gets a leading quote.
import type { TrailEntry } from '../../../domain/trail.ts';

export const present = (_base: string, e: TrailEntry) => ({
  resource: 'trail_entry' as const,
  id: e.id,
  at: e.at,
  mode: e.mode,
  actor: e.actor,
  address: e.address,
  action: e.action,
  target: e.target,
  detail: e.detail,
});

const HEADER = ['at', 'mode', 'actor_kind', 'actor', 'address', 'action', 'target', 'detail'];

function field(v: string | null): string {
  let s = v ?? '';
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function trailCsv(entries: TrailEntry[]): string {
  const rows = entries.map((e) =>
    [e.at, e.mode, e.actor.kind, e.actor.label, e.address, e.action, e.target, Object.keys(e.detail).length ? JSON.stringify(e.detail) : '']
      .map(field)
      .join(','),
  );
  return `${[HEADER.join(','), ...rows].join('\r\n')}\r\n`;
}
