// bench:scale's table: one line per figure, its value and load at each level, and the ratio of
// the largest level to the smallest (every figure is a cost, so above 1.25 is growth).
import type { LevelResult } from './level.ts';

const LIMIT = 1.25;

export function printTable(results: LevelResult[]): void {
  const [small] = results;
  const fmt = (v: number, unit: string) => (unit === 'B' ? `${(v / 1024).toFixed(2)} kB` : `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`);
  const header = [
    'figure',
    ...results.map((r) => `1e${Math.log10(r.level).toFixed(0)} (load)`),
    ...results.slice(1).map((r) => `ratio 1e${Math.log10(r.level).toFixed(0)}`),
  ];
  console.log(`\n${header.join(' | ')}`);
  const over: string[] = [];
  for (const f of small.figures) {
    const at = results.map((r) => r.figures.find((g) => g.name === f.name));
    const ratios = at.slice(1).map((g) => (g ? g.value / f.value : NaN));
    const cells = at.map((g) => (g ? `${fmt(g.value, g.unit)} (${g.load.toFixed(1)})${g.note ? ` [${g.note}]` : ''}` : '-'));
    console.log(`${f.name} | ${cells.join(' | ')} | ${ratios.map((x) => x.toFixed(2)).join(' | ')}`);
    if (ratios.some((x) => x > LIMIT)) over.push(f.name);
  }
  console.log(`\nclient CPU per level: ${results.map((r) => `1e${Math.log10(r.level).toFixed(0)} ${(r.clientCpuMs / 1000).toFixed(1)} s`).join(', ')}`);
  console.log(over.length ? `ratios above ${LIMIT}: ${over.join('; ')}` : `every ratio at most ${LIMIT}`);
}
