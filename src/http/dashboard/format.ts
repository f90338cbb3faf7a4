// Small formatters the templates use (sizes, times, statuses) and the overview chart's geometry.
import type { IntakeChannel, IntakeCount, IntakeStatus } from '../../domain/intake.ts';

export const CHANNELS: IntakeChannel[] = ['ftp', 'sftp', 'mail', 'http'];
export const STATUSES: IntakeStatus[] = ['attached', 'waiting', 'received', 'failed'];
const CHANNEL_NAMES: Record<IntakeChannel, string> = { ftp: 'FTP', sftp: 'SFTP', mail: 'E-mail', http: 'Upload / API' };

export const format = {
  size: (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`),
  time: (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : ''),
  channel: (c: IntakeChannel) => CHANNEL_NAMES[c] ?? c,
  amount: (cents: number) => (cents / 100).toFixed(2),
};

export interface ChartBar {
  channel: string;
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
    return { channel: CHANNEL_NAMES[channel], total: totals[i], segments };
  });
  return { bars, total: totals.reduce((a, b) => a + b, 0) };
}
