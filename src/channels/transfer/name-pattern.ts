// `NLST *.pdf` / `LIST F-2026-*`: a shell-style pattern over the flat directory's names. Pure.
// `*` any run of characters, `?` one character, `[abc]`/`[a-z]`/`[!abc]` one of (or none of) a
// set; matched case-insensitively, as the intake matches `.pdf`.

/** Whether a LIST/NLST argument is a pattern rather than a name. */
export function isNamePattern(arg: string | null | undefined): boolean {
  return arg != null && /[*?[]/.test(arg);
}

/** A predicate for the names a pattern matches, or why the pattern cannot be used. */
export function namePattern(raw: string): { ok: true; matches: (name: string) => boolean } | { ok: false; reason: string } {
  let pattern = raw.trim();
  if (pattern.startsWith('./')) pattern = pattern.slice(2);
  else if (pattern.startsWith('/') && !pattern.startsWith('//')) pattern = pattern.slice(1);
  if (pattern === '' || /[/\\]/.test(pattern)) return { ok: false, reason: 'The directory is flat: a pattern cannot have path parts' };
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        source += '\\[';
        continue;
      }
      let set = pattern.slice(i + 1, end);
      const negate = set.startsWith('!') || set.startsWith('^');
      if (negate) set = set.slice(1);
      source += `[${negate ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else source += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  const re = new RegExp(`^${source}$`, 'iu');
  return { ok: true, matches: (name) => re.test(name) };
}
