// The shipped Prometheus rules (config/prometheus/): promtool accepts them and passes their unit
// tests, every alert has a severity, a summary and a runbook section in docs/operations.md, and the
// unit tests make every alert fire and hold at least one case where it does not.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ROOT } from '../../testkit/paths.ts';

const run = promisify(execFile);
const DIR = path.join(ROOT, 'config/prometheus');
const RULES = path.join(DIR, 'invoice-intake.rules.yml');
const TESTS = path.join(DIR, 'invoice-intake.rules.test.yml');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertTest {
  eval_time: string;
  alertname: string;
  exp_alerts?: unknown[];
}

const alerts = (): Rule[] => (parse(fs.readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules).filter((r) => r.alert);

/** GitHub's anchor of a Markdown heading: lower case, spaces to dashes, punctuation dropped. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('Prometheus rules', () => {
  it('pass promtool check rules', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', RULES]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests (promtool test rules)', async () => {
    const { stdout } = await run('promtool', ['test', 'rules', TESTS], { cwd: DIR }).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`promtool test rules failed:\n${e.stdout}\n${e.stderr}`);
    });
    expect(stdout).toContain('SUCCESS');
  });

  it('fail promtool when an alert no longer fires as its tests say (the tests can fail)', async () => {
    const tmp = fs.mkdtempSync(path.join(ROOT, 'node_modules/.prom-rules-'));
    try {
      // the backlog alert waiting four minutes longer misses its test's evaluation
      const rules = fs.readFileSync(RULES, 'utf8').replace(/(alert: IntakeBacklogStalled[\s\S]*?for: )5m/, (_, head: string) => `${head}9m`);
      expect(rules).toContain('for: 9m');
      fs.writeFileSync(path.join(tmp, 'invoice-intake.rules.yml'), rules);
      // only that alert's tests: the whole file takes promtool several seconds
      const all = parse(fs.readFileSync(TESTS, 'utf8')) as { tests: { alert_rule_test?: AlertTest[] }[] };
      const mine = all.tests.filter((t) => t.alert_rule_test?.some((a) => a.alertname === 'IntakeBacklogStalled'));
      fs.writeFileSync(path.join(tmp, 'stalled.test.yml'), stringify({ ...all, tests: mine }));
      const passes = await run('promtool', ['test', 'rules', 'stalled.test.yml'], { cwd: tmp }).then(
        () => true,
        (e: { stdout: string; stderr: string }) => e.stdout + e.stderr,
      );
      expect(passes).toMatch(/FAILED:[\s\S]*alertname: IntakeBacklogStalled, time: 10m/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('give every alert a severity, a summary, a description and a runbook section named after it', () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const headings = new Set([...docs.matchAll(/^#{2,4} (.+)$/gm)].map((m) => anchor(m[1])));
    const list = alerts();
    expect(list.length).toBeGreaterThanOrEqual(18);
    for (const a of list) {
      expect(['critical', 'warning'], a.alert).toContain(a.labels?.severity);
      expect(a.annotations?.summary, a.alert).toBeTruthy();
      expect(a.annotations?.description, a.alert).toBeTruthy();
      expect(a.annotations?.runbook_url, a.alert).toBe(`docs/operations.md#${a.alert!.toLowerCase()}`);
      expect(headings.has(a.alert!.toLowerCase()), `docs/operations.md has no heading "${a.alert}"`).toBe(true);
    }
  });

  it('have unit tests that fire every alert and that hold it back at least once', () => {
    const tests = (parse(fs.readFileSync(TESTS, 'utf8')) as { tests: { alert_rule_test?: AlertTest[] }[] }).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const a of alerts()) {
      const mine = tests.filter((t) => t.alertname === a.alert);
      expect(
        mine.some((t) => (t.exp_alerts ?? []).length > 0),
        `${a.alert} never fires in the tests`,
      ).toBe(true);
      expect(
        mine.some((t) => (t.exp_alerts ?? []).length === 0),
        `${a.alert} has no case where it stays quiet`,
      ).toBe(true);
    }
  });
});
