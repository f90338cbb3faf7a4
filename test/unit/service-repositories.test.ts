// Each service is reached only through its own repositories (docs/architecture.md, "Repositories are
// handed in"): a service of src/services/ names in Pick<Repositories, ...> only the repositories
// this table gives it, and uses no other. A neighbour's rows are the neighbour's service's business.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVICES = path.resolve(import.meta.dirname, '../../src/services');

/** Service file -> the repositories it owns. The webhooks' three files share that concern's two. */
const OWNS: Record<string, string[]> = {
  'account-service.ts': ['accounts'],
  'customer-service.ts': ['customers'],
  'document-service.ts': ['documents'],
  'document-sweep.ts': ['objects'],
  'event-outbox.ts': ['webhookEvents'],
  'idempotency-service.ts': ['idempotencyKeys'],
  'intake-history-service.ts': ['intakeHistory'],
  'invoice-service.ts': ['invoices'],
  'mail-message-service.ts': ['mailMessages'],
  'maintenance-service.ts': ['maintenance'],
  'payment-service.ts': ['payments'],
  'sender-policy-service.ts': ['senderPolicies'],
  'ssh-key-service.ts': ['sshKeys'],
  'trail-service.ts': ['trail'],
  'upload-key-service.ts': ['uploadKeys'],
  'user-service.ts': ['users'],
  'webhook-service.ts': ['webhooks', 'webhookEvents'],
  'webhook-subscriptions.ts': ['webhooks'],
};

/** The repositories a service's source names: in Pick<Repositories, ...> and as `repos.<name>`. */
function namedRepositories(text: string): { picked: string[]; used: string[]; whole: boolean } {
  const picked = [...text.matchAll(/Pick<\s*Repositories\s*,([^>]*)>/g)].flatMap((m) => [...m[1].matchAll(/'(\w+)'/g)].map((n) => n[1]));
  const used = [...text.matchAll(/\brepos\??\.(\w+)/g)].map((m) => m[1]);
  // the whole set (`Repositories` outside a Pick and the import) would reach every repository
  const whole = /\bRepositories\b/.test(
    text
      .replace(/Pick<\s*Repositories\b/g, '')
      .replace(/^import\b[^;]*;/gm, '')
      .replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''),
  );
  return { picked: [...new Set(picked)], used: [...new Set(used)], whole };
}

/** Problems of one service file against OWNS. */
function checkService(file: string, text: string): string[] {
  const { picked, used, whole } = namedRepositories(text);
  if (!picked.length && !used.length && !whole) return [];
  const own = OWNS[file];
  if (!own) return [`services/${file} uses repositories but owns none: give it its own in OWNS (service-repositories.test.ts)`];
  return [
    ...(whole ? [`services/${file} takes every repository (Repositories): name its own in Pick<Repositories, ...>`] : []),
    ...[...new Set([...picked, ...used])]
      .filter((r) => !own.includes(r))
      .map((r) => `services/${file} reaches ${r}, not its own: call the service that owns ${r}`),
  ];
}

describe('each service reaches only its own repositories', () => {
  it('the rule itself: a neighbour picked or used is caught, its own passes', () => {
    expect(checkService('payment-service.ts', `repos: Pick<Repositories, 'invoices' | 'payments'>`)).toEqual([
      'services/payment-service.ts reaches invoices, not its own: call the service that owns invoices',
    ]);
    expect(checkService('payment-service.ts', `repos: Pick<Repositories, 'payments'>; this.repos.invoices.find()`)).toHaveLength(1);
    expect(checkService('payment-service.ts', `import type { Repositories } from '../repositories/repositories.ts';\nrepos: Repositories`)).toHaveLength(1);
    expect(checkService('new-service.ts', `repos: Pick<Repositories, 'payments'>`)).toEqual([expect.stringMatching(/owns none/)]);
    expect(
      checkService(
        'webhook-service.ts',
        `import type { Repositories } from '../repositories/repositories.ts';\nrepos: Pick<Repositories, 'webhookEvents' | 'webhooks'>`,
      ),
    ).toEqual([]);
    expect(checkService('passwords.ts', 'export function hashPassword() {}')).toEqual([]);
  });

  it('no service of src/services names a repository it does not own', () => {
    const files = fs.readdirSync(SERVICES).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(15);
    const problems = files.flatMap((f) => checkService(f, fs.readFileSync(path.join(SERVICES, f), 'utf8')));
    expect(problems).toEqual([]);
  });

  it('every repository of the core has its owner, and the table names only repositories that exist', () => {
    const text = fs.readFileSync(path.join(SERVICES, '../repositories/repositories.ts'), 'utf8');
    const all = [...text.slice(text.indexOf('export interface Repositories'), text.indexOf('export function')).matchAll(/^\s+(\w+):/gm)].map((m) => m[1]);
    // the installation's id is read by the composition root only (the Redis prefix)
    const owned = new Set([...Object.values(OWNS).flat(), 'installation']);
    expect(all.filter((r) => !owned.has(r))).toEqual([]);
    expect([...owned].filter((r) => !all.includes(r))).toEqual([]);
  });
});
