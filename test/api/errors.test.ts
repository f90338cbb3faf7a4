// The spec's error contract: body {status, title, detail, field?}, every status it names, every
// limit of its Limits table, and never a 500 for anything a client can send.
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { createCustomer, createInvoice, makePdf } from '../helpers/fixtures.ts';
import type { Reply, TestApp } from '../helpers/test-app.ts';

function expectError(res: Reply, status: number, detail?: string | RegExp, field?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/(hal\+)?json/);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.title).toBe('string');
  expect(res.body.title.length).toBeGreaterThan(0);
  expect(typeof res.body.detail).toBe('string');
  if (detail !== undefined) expect(res.body.detail).toMatch(detail instanceof RegExp ? detail : new RegExp(`^${detail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  if (field !== undefined) expect(res.body.field).toBe(field);
  // nothing but the spec's members
  for (const k of Object.keys(res.body)) expect(['status', 'title', 'detail', 'field']).toContain(k);
}

const validInvoice = (customer: string, extra: Record<string, unknown> = {}) => ({
  customer, invoiceNumber: `E-${Math.random().toString(36).slice(2)}`, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '480.00', ...extra,
});

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('400: formats with the spec texts', () => {
  it('Field email in wrong format (create and patch)', async ({ t, key }) => {
    const res = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'E-1', name: 'X', email: 'nope@' } });
    expectError(res, 400, 'Field email in wrong format', 'email');
    const c = await createCustomer(t, key);
    const patch = await t.request('PATCH', `/v2/customers/${c.id}`, { key, body: { Email: 'a b@c.nl' } });
    expectError(patch, 400, 'Field email in wrong format', 'email');
    const inv = await t.request('PATCH', `/v2/customers/${c.id}`, { key, body: { invoiceEmail: 'x' } });
    expectError(inv, 400, 'Field invoiceEmail in wrong format', 'invoiceEmail');
  });

  it('Field invoiceDate in wrong format, for syntax and for days that do not exist', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    for (const bad of ['2026-02-01', '1-2-2026', '31-02-2026', '29-02-2025', '00-01-2026', '01-13-2026', 'tomorrow', '', 20260201, '01/02/2026']) {
      const res = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceDate: bad }) });
      expectError(res, 400, 'Field invoiceDate in wrong format', 'invoiceDate');
    }
    const leap = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceDate: '29-02-2028' }) });
    expect(leap.status).toBe(201);
    const due = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceDuedate: '31-04-2026' }) });
    expectError(due, 400, 'Field invoiceDuedate in wrong format', 'invoiceDuedate');
    const patch = await t.request('PATCH', `/v2/invoices/${leap.body.id}`, { key, body: { InvoiceDate: '30-02-2026' } });
    expectError(patch, 400, 'Field invoiceDate in wrong format', 'invoiceDate');
  });

  it('Field date in wrong format for payments', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    for (const bad of ['2026-03-01', '32-01-2026', 'x']) {
      const res = await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: bad, amount: '10.00' } });
      expectError(res, 400, 'Field date in wrong format', 'date');
    }
  });

  it('amount syntax errors are 400 naming the field', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    for (const bad of ['abc', '1.234', '-5.00', '1e5', '', '12.3.4', true, { v: 1 }, [1, 2], 480.555, 1e21]) {
      const res = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: bad }) });
      expectError(res, 400, undefined, 'invoiceTotal');
    }
    const inv = await createInvoice(t, key);
    const pay = await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-03-2026', amount: 'ten' } });
    expectError(pay, 400, 'Field amount in wrong format', 'amount');
  });

  it('amounts: JSON numbers, one decimal and a decimal comma are read exactly', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    const a = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: 480.5 }) });
    expect(a.body.invoiceTotal).toBe('480.50');
    const b = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: '99,95' }) });
    expect(b.body.invoiceTotal).toBe('99.95');
    const d = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: '1100' }) });
    expect(d.body.invoiceTotal).toBe('1100.00');
  });

  it('unknown enum values are 400 naming the field', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceStatus: 'draft' }) }), 400, /invoiceStatus/, 'invoiceStatus');
    expectError(await t.request('PATCH', `/v2/customers/${c.id}`, { key, body: { language: 'klingon' } }), 400, /language/, 'language');
    const inv = await createInvoice(t, key);
    expectError(await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-03-2026', amount: '1.00', method: 'cash' } }), 400, /method/, 'method');
    expectError(await t.request('GET', '/v2/invoices?InvoiceStatus=late', { key }), 400, /invoiceStatus/, 'invoiceStatus');
  });

  it('a language that is not released yet is 422 naming the field', async ({ t, key }) => {
    const res = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'E-lang', name: 'X', language: 'italian' } });
    expectError(res, 422, /not released/, 'language');
  });

  it('missing required fields are 400 naming the field', async ({ t, key }) => {
    expectError(await t.request('POST', '/v2/customers', { key, body: { name: 'X' } }), 400, 'Field customerCode is required', 'customerCode');
    expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: 'E-2' } }), 400, 'Field name is required', 'name');
    expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: '   ', name: 'X' } }), 400, /customerCode/, 'customerCode');
    const c = await createCustomer(t, key);
    for (const field of ['customer', 'invoiceNumber', 'invoiceDate', 'invoiceDuedate', 'invoiceTotal']) {
      const body: Record<string, unknown> = validInvoice(c.id);
      delete body[field];
      expectError(await t.request('POST', '/v2/invoices', { key, body }), 400, `Field ${field} is required`, field);
    }
    expectError(await t.request('POST', '/v2/payments', { key, body: { date: '01-01-2026', amount: '1.00' } }), 400, 'Field invoice is required', 'invoice');
    expectError(await t.request('GET', '/v2/customers/search', { key }), 400, 'Field customer is required', 'customer');
  });
});

describe('401', () => {
  it('answers 401 with the error body for a missing, malformed or unknown key', async ({ t, key }) => {
    for (const headers of <Record<string, string>[]>[{}, { authorization: "Basic dXNlcjpwYXNz" }, { authorization: 'Bearer' }, { authorization: `Bearer live_${'x'.repeat(40)}` }, { authorization: 'Bearer not-a-key' }]) {
      const res = await t.request('GET', '/v2/customers', { headers });
      expectError(res, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });
});

describe('404 with the spec detail texts', () => {
  it('names the id that does not exist', async ({ t, key }) => {
    expectError(await t.request('GET', '/v2/customers/cst_missing', { key }), 404, 'No customer exists with id cst_missing.');
    expectError(await t.request('PATCH', '/v2/customers/cst_missing', { key, body: { name: 'Y' } }), 404, 'No customer exists with id cst_missing.');
    expectError(await t.request('DELETE', '/v2/customers/cst_missing', { key }), 404, 'No customer exists with id cst_missing.');
    expectError(await t.request('GET', '/v2/invoices/inv_missing', { key }), 404, 'No invoice exists with id inv_missing.');
    expectError(await t.request('PATCH', '/v2/invoices/inv_missing', { key, body: { invoiceStatus: 'paid' } }), 404, 'No invoice exists with id inv_missing.');
    expectError(await t.request('DELETE', '/v2/invoices/inv_missing', { key }), 404, 'No invoice exists with id inv_missing.');
    expectError(await t.request('DELETE', '/v2/documents/doc_missing', { key }), 404, 'No document exists with id doc_missing.');
    expectError(await t.request('GET', '/v2/payments/pay_missing', { key }), 404, 'No payment exists with id pay_missing.');
    const pdf = (await makePdf()).toString('base64');
    expectError(await t.request('POST', '/v2/documents/inv_missing', { key, body: { filename: 'a.pdf', mediatype: 'application/pdf', content: pdf } }), 404, 'No invoice exists with id inv_missing.');
    expectError(await t.request('POST', '/v2/payments', { key, body: { invoice: 'inv_missing', date: '01-01-2026', amount: '1.00' } }), 404, 'No invoice exists with id inv_missing.');
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice('cst_missing') }), 404, 'No customer exists with id cst_missing.');
    expectError(await t.request('GET', '/v2/customers/search?customer=NOPE-1', { key }), 404, /NOPE-1/);
  });

  it('an unknown path is 404 in the same format', async ({ t, key }) => {
    expectError(await t.request('GET', '/v2/nothing-here', { key }), 404);
    expectError(await t.request('GET', '/v3/customers', { key }), 404);
  });
});

describe('405 with Allow', () => {
  it('lists the methods a path supports', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    const cases: [string, string, string[]][] = [
      ['PUT', `/v2/customers/${c.id}`, ['GET', 'PATCH', 'DELETE']],
      ['DELETE', '/v2/customers', ['GET', 'POST']],
      ['PATCH', '/v2/payments', ['GET', 'POST']],
      ['PUT', '/v2/invoices', ['GET', 'POST']],
      ['PATCH', '/v2/documents/doc_x', ['GET', 'POST', 'DELETE']],
    ];
    for (const [method, url, allowed] of cases) {
      const res = await t.request(method, url, { key, body: {} });
      expectError(res, 405);
      const allow = String(res.headers.allow).split(/,\s*/);
      for (const m of allowed) expect(allow).toContain(m);
      expect(allow).not.toContain(method);
    }
  });
});

describe('409, 410', () => {
  it('409 for a duplicate invoice number in the same account and mode', async ({ t, acct, key }) => {
    const inv = await createInvoice(t, key);
    const res = await t.request('POST', '/v2/invoices', { key, body: validInvoice(inv.customer.id, { invoiceNumber: inv.invoiceNumber }) });
    expectError(res, 409, new RegExp(inv.invoiceNumber), 'invoiceNumber');
    // the same number is free in test mode
    const cst = await createCustomer(t, acct.testKey);
    expect((await t.request('POST', '/v2/invoices', { key: acct.testKey, body: validInvoice(cst.id, { invoiceNumber: inv.invoiceNumber }) })).status).toBe(201);
  });

  it('410 for deleted customers, invoices and documents', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    expect((await t.request('DELETE', `/v2/customers/${c.id}`, { key })).status).toBe(204);
    expectError(await t.request('GET', `/v2/customers/${c.id}`, { key }), 410, new RegExp(c.id));
    expectError(await t.request('PATCH', `/v2/customers/${c.id}`, { key, body: { name: 'Z' } }), 410);
    expectError(await t.request('DELETE', `/v2/customers/${c.id}`, { key }), 410);
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id) }), 410, undefined, 'customer');

    const inv = await createInvoice(t, key);
    const doc = await t.request('POST', `/v2/documents/${inv.id}`, { key, body: { filename: 'x.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') } });
    expect(doc.status).toBe(201);
    expect((await t.request('DELETE', `/v2/invoices/${inv.id}`, { key })).status).toBe(204);
    expectError(await t.request('GET', `/v2/invoices/${inv.id}`, { key }), 410, new RegExp(inv.id));
    expectError(await t.request('PATCH', `/v2/invoices/${inv.id}`, { key, body: { invoiceStatus: 'paid' } }), 410);
    expectError(await t.request('DELETE', `/v2/invoices/${inv.id}`, { key }), 410);
    expectError(await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-01-2026', amount: '1.00' } }), 410, undefined, 'invoice');
    // the deleted invoice's document went with it
    expectError(await t.request('GET', `/v2/documents/${doc.body.id}`, { key }), 410);

    const inv2 = await createInvoice(t, key);
    const doc2 = await t.request('POST', `/v2/documents/${inv2.id}`, { key, body: { filename: 'y.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') } });
    expect((await t.request('DELETE', `/v2/documents/${doc2.body.id}`, { key })).status).toBe(204);
    expectError(await t.request('GET', `/v2/documents/${doc2.body.id}`, { key }), 410, new RegExp(doc2.body.id));
    expectError(await t.request('DELETE', `/v2/documents/${doc2.body.id}`, { key }), 410);
  });
});

describe('415', () => {
  it('refuses bodies that are neither JSON nor form-encoded', async ({ t, key }) => {
    const bodies: [string, string][] = [
      ['text/plain', 'customerCode=A&name=B'],
      ['text/plain; charset=utf-8', '{"customerCode":"A","name":"B"}'],
      ['application/xml', '<customer><name>B</name></customer>'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nB\r\n--x--'],
      ['application/octet-stream', 'abc'],
      ['text/csv', 'a,b'],
    ];
    for (const [type, payload] of bodies) {
      const res = await t.request('POST', '/v2/customers', { key, body: payload, headers: { 'content-type': type } });
      expectError(res, 415);
    }
    const inv = await createInvoice(t, key);
    expectError(await t.request('PATCH', `/v2/invoices/${inv.id}`, { key, body: 'invoiceStatus=paid', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('accepts JSON with a charset and form-encoded bodies', async ({ t, key }) => {
    const a = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'E-ct1', name: 'A' }, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(a.status).toBe(201);
    const b = await t.request('POST', '/v2/customers', { key, form: { CustomerCode: 'E-ct2', Name: 'B' } });
    expect(b.status).toBe(201);
    const hal = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'E-ct3', name: 'C' }, headers: { 'content-type': 'application/hal+json' } });
    expect(hal.status).toBe(201);
  });

  it('an empty body with a JSON content type is no body: DELETE works, POST says what is missing', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    const del = await t.app.inject({ method: 'DELETE', url: `/v2/customers/${c.id}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
    expect(del.statusCode).toBe(204);
    const post = await t.request('POST', '/v2/customers', { key, body: '', headers: { 'content-type': 'application/json' } });
    expectError(post, 400);
    const patch = await t.request('PATCH', `/v2/invoices/inv_none`, { key, body: '  ', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expectError(patch, 400);
  });
});

describe('422', () => {
  it('an amount above the maximum: The amount is higher than the maximum, field invoicetotal', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    for (const total of ['10000000.00', '99999999.99', '123456789012345', 1e12]) {
      const res = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: total }) });
      expectError(res, 422, 'The amount is higher than the maximum', 'invoicetotal');
    }
    const max = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: '9999999.99' }) });
    expect(max.status).toBe(201);
    expect(max.body.invoiceTotal).toBe('9999999.99');
    const bal = await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: '10.00', invoiceBalance: '10000000.00' }) });
    expectError(bal, 422, 'The amount is higher than the maximum', 'invoicebalance');
    const patch = await t.request('PATCH', `/v2/invoices/${max.body.id}`, { key, body: { invoiceTotal: '10000000.00' } });
    expectError(patch, 422, 'The amount is higher than the maximum', 'invoicetotal');
  });

  it('a balance above the total is 422 with field', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceBalance: '480.01' }) }), 422, undefined, 'invoicebalance');
  });
});

describe('the Limits table', () => {
  const over = (n: number) => 'x'.repeat(n + 1);

  it('customer text fields', async ({ t, key }) => {
    const limits: Record<string, number> = {
      customerCode: 250, name: 250, address: 250, city: 250, contact: 250, postalcode: 10, registrationNumber: 10, phone: 20, mobile: 20,
    };
    for (const [field, max] of Object.entries(limits)) {
      const body: Record<string, string> = { customerCode: `L-${field}`, name: 'N', [field]: over(max) };
      expectError(await t.request('POST', '/v2/customers', { key, body }), 400, `Field ${field} is longer than ${max} characters`, field);
      const ok: Record<string, string> = { customerCode: `L-${field}`, name: 'N', [field]: 'x'.repeat(max) };
      expect((await t.request('POST', '/v2/customers', { key, body: ok })).status, field).toBe(201);
    }
    const longEmail = `${'a'.repeat(245)}@b.nl`; // 250 characters
    expect((await t.request('POST', '/v2/customers', { key, body: { customerCode: 'L-email', name: 'N', email: longEmail, invoiceEmail: longEmail } })).status).toBe(201);
    for (const field of ['email', 'invoiceEmail']) {
      expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: 'L-email2', name: 'N', [field]: `a${longEmail}` } }), 400, `Field ${field} is longer than 250 characters`, field);
    }
    const c = await createCustomer(t, key);
    for (const [field, max] of Object.entries(limits)) {
      if (field === 'customerCode') continue;
      expectError(await t.request('PATCH', `/v2/customers/${c.id}`, { key, body: { [field]: over(max) } }), 400, `Field ${field} is longer than ${max} characters`, field);
    }
  });

  it('country is two characters', async ({ t, key }) => {
    expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: 'L-c1', name: 'N', country: 'NLD' } }), 400, 'Field country is longer than 2 characters', 'country');
    expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: 'L-c2', name: 'N', country: 'N' } }), 400, 'Field country in wrong format', 'country');
    expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: 'L-c3', name: 'N', country: '1€' } }), 400, 'Field country in wrong format', 'country');
    const be = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'L-c4', name: 'N', country: 'be' } });
    expect(be.body.address.country).toBe('BE');
  });

  it('invoice number, ids, dates, amounts, status', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceNumber: over(100) }) }), 400, 'Field invoiceNumber is longer than 100 characters', 'invoiceNumber');
    expect((await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceNumber: 'n'.repeat(100) }) })).status).toBe(201);
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(over(36)) }), 400, 'Field customer is longer than 36 characters', 'customer');
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceDate: ' 01-02-2026 x' }) }), 400, 'Field invoiceDate in wrong format', 'invoiceDate');
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceTotal: '0000000001.00' }) }), 400, 'Field invoiceTotal is longer than 10 characters', 'invoiceTotal');
    expectError(await t.request('POST', '/v2/invoices', { key, body: validInvoice(c.id, { invoiceStatus: 'cancelled-x' }) }), 400, undefined, 'invoiceStatus');
    expectError(await t.request('GET', `/v2/customers/${over(36)}`, { key }), 400, 'Field customer_id is longer than 36 characters', 'customer_id');
    expectError(await t.request('GET', `/v2/invoices/${over(36)}`, { key }), 400, 'Field invoice_id is longer than 36 characters', 'invoice_id');
    expectError(await t.request('POST', '/v2/payments', { key, body: { invoice: over(36), date: '01-01-2026', amount: '1.00' } }), 400, 'Field invoice is longer than 36 characters', 'invoice');
    expectError(await t.request('GET', `/v2/customers/${'y'.repeat(600)}`, { key }), 400);
  });

  it('document fields: filename, mediatype, content', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    const content = (await makePdf()).toString('base64');
    const post = (body: Record<string, unknown>) => t.request('POST', `/v2/documents/${inv.id}`, { key, body: { filename: 'a.pdf', mediatype: 'application/pdf', content, ...body } });
    expectError(await post({ filename: `${'f'.repeat(247)}.pdf` }), 400, 'Field filename is longer than 250 characters', 'filename');
    expect((await post({ filename: `${'f'.repeat(246)}.pdf` })).status).toBe(201);
    expectError(await post({ mediatype: `application/${'p'.repeat(40)}` }), 400, 'Field mediatype is longer than 50 characters', 'mediatype');
    expectError(await post({ mediatype: 'image/png' }), 400, undefined, 'mediatype');
    expectError(await post({ invoice: over(36) }), 400, 'Field invoice is longer than 36 characters', 'invoice');
    expectError(await post({ content: 'A'.repeat(5_242_881) }), 400, 'Field content is longer than 5242880 characters', 'content');
    expectError(await post({ content: 'A'.repeat(7_000_000) }), 413, undefined, 'content');
  });

  it('page size limit', async ({ t, key }) => {
    for (const path of ['/v2/customers', '/v2/invoices', '/v2/payments']) {
      expectError(await t.request('GET', `${path}?limit=251`, { key }), 400, undefined, 'limit');
      expect((await t.request('GET', `${path}?Limit=250`, { key })).status).toBe(200);
    }
  });
});

describe('never a 500 for bad input', () => {
  const garbage: unknown[] = [
    '{', '{"a":', 'null', '[]', '[{"customerCode":"A","name":"B"}]', '"a string"', '42', 'true', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}',
    '\u0000', '{"name":"\\u0000"}', '{"customerCode":"A\\u0000B","name":"x"}', '{"customerCode":{"a":1},"name":"x"}', '{"customerCode":["a","b"],"name":"x"}',
    '{"customerCode":123456789,"name":12.5}', '{"customerCode":null,"name":null}', '{"customerCode":"😀👍🏽","name":"Ünïcødé ☃ 中文 \\ud800"}',
    `{"customerCode":"${'z'.repeat(100_000)}","name":"x"}`, '{"customerCode":"A","name":"B","email":"' + 'é'.repeat(300) + '"}',
    '{"customer":1e400,"invoiceTotal":1e400}', '{"invoiceTotal":-1e308,"invoiceDate":[]}', JSON.stringify({ a: { b: { c: { d: { e: { f: 'deep' } } } } } }),
    '', ' ', '\ufeff{}',
  ];
  const targets = async (t: TestApp, key: string) => {
    const inv = await createInvoice(t, key);
    return [
      ['POST', '/v2/customers'],
      ['POST', '/v2/customers?Overwrite=true'],
      ['PATCH', `/v2/customers/${inv.customer.id}`],
      ['POST', '/v2/invoices'],
      ['PATCH', `/v2/invoices/${inv.id}`],
      ['POST', '/v2/documents'],
      ['POST', `/v2/documents/${inv.id}`],
      ['POST', '/v2/payments'],
    ] as const;
  };

  it('garbage JSON, arrays, wrong types, huge values and unicode answer 4xx in the error format', async ({ t, key }) => {
    for (const [method, url] of await targets(t, key)) {
      for (const body of garbage) {
        const res = await t.request(method, url, { key, body: body as string, headers: { 'content-type': 'application/json' } });
        expect(res.status, `${method} ${url} ${String(body).slice(0, 60)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) expectError(res, res.status);
      }
    }
  });

  it('garbage form bodies, query strings and path segments answer 4xx', async ({ t, key }) => {
    for (const [method, url] of await targets(t, key)) {
      for (const payload of ['%', '%zz=1', 'a=%00', 'customerCode=x&customerCode=y&name=z', 'invoiceTotal=1e9999', '&&&', '=']) {
        const res = await t.request(method, url, { key, body: payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        expect(res.status, `${method} ${url} ${payload} -> ${res.status}`).toBeLessThan(500);
      }
    }
    const urls = [
      '/v2/customers?limit=abc', '/v2/customers?limit=-1', '/v2/customers?limit=0', '/v2/customers?limit=1e3', '/v2/customers?limit=99999999999999999999',
      '/v2/customers?from=%00', '/v2/customers?from=x%27%3B%20drop%20table%20customers', '/v2/customers?limit=1&limit=2', '/v2/invoices?invoicestatus=%00',
      '/v2/customers/search?customer=%00', '/v2/customers/search?customer=%F0%9F%98%80', '/v2/customers/%00', '/v2/customers/%E0%A4%A', '/v2/invoices/%F0%9F%98%80',
      '/v2/documents/%00/content', '/v2/payments/%25', '/v2/customers?from=😀', '/v2/customers?%00=1',
    ];
    for (const url of urls) {
      const res = await t.request('GET', url, { key });
      expect(res.status, `${url} -> ${res.status} ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, url).toBeLessThan(500);
      expectError(res, res.status);
    }
  });

  it('NUL characters are refused naming the field', async ({ t, key }) => {
    expectError(await t.request('POST', '/v2/customers', { key, body: { customerCode: 'A\u0000', name: 'x' } }), 400, 'Field customerCode in wrong format', 'customerCode');
    expectError(await t.request('GET', '/v2/customers/search?customer=a%00b', { key }), 400, 'Field customer in wrong format', 'customer');
  });

  it('unicode text is stored and returned as sent', async ({ t, key }) => {
    const name = 'Ünïcødé ☃ 中文 😀👍🏽 Ελληνικά';
    const res = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'Ü-😀', name, city: 'Kraków' } });
    expect(res.status).toBe(201);
    const got = await t.request('GET', `/v2/customers/${res.body.id}`, { key });
    expect(got.body).toMatchObject({ customerCode: 'Ü-😀', name, address: { city: 'Kraków' } });
    const search = await t.request('GET', `/v2/customers/search?customer=${encodeURIComponent('Ü-😀')}`, { key });
    expect(search.body.id).toBe(res.body.id);
  });
});
