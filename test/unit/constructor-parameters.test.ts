// Constructors beyond four parameters take an options object (issue 48): a call of eight
// positional arguments says nothing of which is which, and two of one type swap silently.
// Every constructor of src/ is read (its parameter list up to the matching parenthesis, comments
// and strings skipped, commas counted at the list's own depth); this names each one with more.
// TypeScript 7's compiler has no JavaScript parser API to ask, hence the small scanner.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX = 4;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The number of parameters of the list that starts after `open` (the index of its "("), and the index of its ")". */
function parameterCount(text: string, open: number): { count: number; end: number } {
  let depth = 0;
  let commas = 0;
  let any = false;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i) + 1;
    else if (c === "'" || c === '"' || c === '`') {
      for (i++; text[i] !== c; i++) if (text[i] === '\\') i++;
      any = true;
    } else if ('([{<'.includes(c)) depth++;
    else if (c === '>' && text[i - 1] === '=')
      continue; // an arrow, not a type argument's end
    else if (')]}>'.includes(c)) {
      if (depth === 0)
        return {
          count: any
            ? commas +
              1 -
              (text
                .slice(open + 1, i)
                .trimEnd()
                .endsWith(',')
                ? 1
                : 0)
            : 0,
          end: i,
        };
      depth--;
    } else if (c === ',' && depth === 0) commas++;
    else if (!/\s/.test(c)) any = true;
  }
  throw new Error('unclosed parameter list');
}

/** `file:line (n parameters)` for every constructor in `text` with more than MAX parameters. */
function longConstructors(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bconstructor\s*\(/g)) {
    const { count } = parameterCount(text, m.index + m[0].length - 1);
    const line = text.slice(0, m.index).split('\n').length;
    if (count > MAX) found.push(`${file}:${line} (${count} parameters)`);
  }
  return found;
}

describe('constructor parameters', () => {
  it('the rule itself: five parameters are named, four and an options object are not', () => {
    const five = `class A {\n  constructor(\n    private readonly a: Pick<X, 'b' | 'c'>,\n    /** one, two */ b: Map<string, number>,\n    c = (x: number, y: number) => x + y,\n    d: string = ',',\n    e?: () => void,\n  ) {}\n}`;
    expect(longConstructors('a.ts', five)).toEqual(['a.ts:2 (5 parameters)']);
    expect(
      longConstructors(
        'b.ts',
        'class B { constructor(a: 1, b: 2, c: 3, d: 4,) {} }\nclass C { constructor(o: { a: 1; b: 2; c: 3; d: 4; e: 5 }) {} }\nclass D { constructor() {} }',
      ),
    ).toEqual([]);
  });

  it(`no constructor in src/ takes more than ${MAX} parameters (take an options object instead)`, () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => longConstructors(path.relative(SRC, f), fs.readFileSync(f, 'utf8')))).toEqual([]);
  });
});
