// The spec's error body, asserted whole: the status, a title, the detail (exact or a pattern), the
// field, and no other member.
import { expect } from 'vitest';
import type { HttpReply } from '../../testkit/http-client.ts';

export function expectError(res: HttpReply, status: number, detail?: string | RegExp, field?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/(hal\+)?json/);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.title).toBe('string');
  expect(res.body.title.length).toBeGreaterThan(0);
  expect(typeof res.body.detail).toBe('string');
  if (detail !== undefined)
    expect(res.body.detail).toMatch(detail instanceof RegExp ? detail : new RegExp(`^${detail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  if (field !== undefined) expect(res.body.field).toBe(field);
  // nothing but the spec's members
  for (const k of Object.keys(res.body)) expect(['status', 'title', 'detail', 'field']).toContain(k);
}

export const validInvoice = (customer: string, extra: Record<string, unknown> = {}) => ({
  customer,
  invoiceNumber: `E-${Math.random().toString(36).slice(2)}`,
  invoiceDate: '01-02-2026',
  invoiceDuedate: '01-03-2026',
  invoiceTotal: '480.00',
  ...extra,
});
