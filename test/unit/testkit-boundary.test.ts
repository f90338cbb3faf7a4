// testkit/ is what tests and benchmarks share; bench/ and testkit/ never reach into test/ (nor
// testkit/ into bench/), so neither depends on a test file's helpers staying where they are.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';

/** Every relative import and re-export specifier of the .ts files in `dir`, resolved to a path from the checkout. */
function importsOf(dir: string): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  for (const name of fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]) {
    if (!name.endsWith('.ts')) continue;
    const file = path.join(dir, name);
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/gm)) {
      out.push({ file, target: path.relative(ROOT, path.resolve(ROOT, path.dirname(file), m[1] ?? m[2])) });
    }
  }
  return out;
}

const into =
  (folder: string) =>
  ({ target }: { target: string }) =>
    target === folder || target.startsWith(`${folder}/`);

describe('testkit boundary', () => {
  it('finds the imports it checks', () => {
    expect(importsOf('bench').filter(into('testkit')).length).toBeGreaterThan(0);
  });

  it('bench/ imports nothing from test/', () => {
    expect(importsOf('bench').filter(into('test'))).toEqual([]);
  });

  it('testkit/ imports nothing from test/ or bench/', () => {
    const kit = importsOf('testkit');
    expect(kit.filter(into('test'))).toEqual([]);
    expect(kit.filter(into('bench'))).toEqual([]);
  });
});
