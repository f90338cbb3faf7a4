// The channels and statuses in the order the dashboard shows them, and the overview chart's
// geometry. Words and formats are in i18n/.
import { INTAKE_CHANNELS, type IntakeChannel } from '../../domain/channels.ts';
import type { IntakeCount, IntakeStatus } from '../../domain/intake.ts';

export const CHANNELS: readonly IntakeChannel[] = INTAKE_CHANNELS;
export const STATUSES: IntakeStatus[] = ['attached', 'waiting', 'received', 'failed', 'held'];

export interface ChartBar {
  channel: IntakeChannel;
  total: number;
  segments: { status: IntakeStatus; count: number; x: number; width: number }[];
}

/** One horizontal bar per channel, split by status; widths in percent of the largest bar. */
export function chartBars(counts: IntakeCount[]): { bars: ChartBar[]; total: number } {
  const totals = CHANNELS.map((ch) => counts.filter((c) => c.channel === ch).reduce((n, c) => n + c.count, 0));
  const max = Math.max(1, ...totals);
  const bars = CHANNELS.map((channel, i) => {
    let x = 0;
    const segments = STATUSES.map((status) => {
      const count = counts.find((c) => c.channel === channel && c.status === status)?.count ?? 0;
      const width = (count / max) * 100;
      const seg = { status, count, x, width };
      x += width;
      return seg;
    }).filter((s) => s.count > 0);
    return { channel, total: totals[i], segments };
  });
  return { bars, total: totals.reduce((a, b) => a + b, 0) };
}
