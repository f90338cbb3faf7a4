// docs/configuration.md and config/example.env, written from the schema (`npm run docs:config`);
// test/unit/config-docs.test.ts fails when the files differ from what this writes.
import { settingEntries, type SettingEntry } from './schema.ts';

const GENERATED = 'Generated from src/config/schema.ts by `npm run docs:config`: edit the schema, not this file.';

const byGroup = () => {
  const groups = new Map<string, SettingEntry[]>();
  for (const e of settingEntries) groups.set(e.group, [...(groups.get(e.group) ?? []), e]);
  return [...groups.values()];
};
const anchor = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
const cell = (text: string) => text.replace(/\|/g, '\\|');

function notes(e: SettingEntry): string {
  const parts = [e.meta.doc];
  if (e.meta.aliases?.length)
    parts.push(
      `Old name${e.meta.aliases.length > 1 ? 's' : ''}: ${e.meta.aliases.map((a) => `\`${a}\``).join(', ')} (still read; \`${e.meta.env}\` wins when both are set).`,
    );
  if (e.meta.secret) parts.push('Secret: a problem never shows its value.');
  return cell(parts.join(' '));
}

function shownDefault(e: SettingEntry): string {
  if (e.meta.default === undefined) return 'unset';
  return e.meta.default === '' ? '(empty)' : `\`${e.meta.default}\``;
}

export function configurationMarkdown(): string {
  const groups = byGroup();
  const lines = [
    '# Configuration',
    '',
    `<!-- ${GENERATED} -->`,
    '',
    'Every setting is an environment variable, read once at start-up and checked against the schema',
    '(`src/config/schema.ts`, one group per feature). A process with a bad setting does not start: it',
    "lists every bad setting, each with its variable's name and what it must be. An empty value counts",
    'as unset. `config/example.env` lists the same settings with their defaults.',
    '',
    ...groups.map((g) => `- [${g[0].title}](#${anchor(g[0].title)})`),
  ];
  for (const g of groups) {
    lines.push('', `## ${g[0].title}`, '');
    if (g[0].description) lines.push(g[0].description, '');
    lines.push('| Variable | Default | Value | What it does |', '|---|---|---|---|');
    for (const e of g) lines.push(`| \`${e.meta.env}\` | ${shownDefault(e)} | ${cell(e.form)} | ${notes(e)} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** `text` as comment lines of at most `width` characters, indented so that no line reads as a setting (`# NAME=`). */
function comment(text: string, width = 100): string[] {
  const out: string[] = [];
  let line = '#  ';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > width && line.length > 4) {
      out.push(line);
      line = '#  ';
    }
    line += ` ${word}`;
  }
  return [...out, line];
}

export function exampleEnv(): string {
  const lines = [
    `# Every setting with its default (docs/configuration.md). ${GENERATED}`,
    '# Copy what you change into the environment; unset ones are commented out.',
  ];
  for (const g of byGroup()) {
    lines.push('', `# --- ${g[0].title} ---`);
    for (const e of g) {
      lines.push(...comment(e.meta.doc));
      lines.push(e.meta.default === undefined ? `# ${e.meta.env}=${e.meta.example ?? ''}` : `${e.meta.env}=${e.meta.default}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
