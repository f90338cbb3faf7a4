// The trail as CSV (RFC 4180): one row per entry, a header row, every field quoted when it must be.
// A field that a spreadsheet would run as a formula (= + - @ at its start) gets a leading quote.
import type { TrailEntry } from '../../domain/trail.ts';

const HEADER = ['at', 'mode', 'actor_kind', 'actor', 'address', 'action', 'target', 'detail'];

function field(v: string | null): string {
  let s = v ?? '';
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function trailCsv(entries: TrailEntry[]): string {
  const rows = entries.map((e) => [e.at, e.mode, e.actor.kind, e.actor.label, e.address, e.action, e.target, Object.keys(e.detail).length ? JSON.stringify(e.detail) : ''].map(field).join(','));
  return [HEADER.join(','), ...rows].join('\r\n') + '\r\n';
}
