// The spec's error contract: body {status, title, detail, field?} and every status it names (its
// Limits table and hostile input are in input-limits.test.ts).
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { createCustomer, createInvoice, makePdf } from '../helpers/fixtures.ts';
import { expectError, validInvoice } from '../helpers/error-body.ts';

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
    for (const bad of ['abc', '1.234', '--5.00', '1e5', '', '12.3.4', true, { v: 1 }, [1, 2], 480.555, 1e21]) {
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
    expectError(
      await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-03-2026', amount: '1.00', method: 'cash' } }),
      400,
      /method/,
      'method',
    );
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
  it('answers 401 with the error body for a missing, malformed or unknown key', async ({ t }) => {
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: `Bearer live_${'x'.repeat(40)}` },
      { authorization: 'Bearer not-a-key' },
    ]) {
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
    expectError(
      await t.request('POST', '/v2/documents/inv_missing', { key, body: { filename: 'a.pdf', mediatype: 'application/pdf', content: pdf } }),
      404,
      'No invoice exists with id inv_missing.',
    );
    expectError(
      await t.request('POST', '/v2/payments', { key, body: { invoice: 'inv_missing', date: '01-01-2026', amount: '1.00' } }),
      404,
      'No invoice exists with id inv_missing.',
    );
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
    const doc = await t.request('POST', `/v2/documents/${inv.id}`, {
      key,
      body: { filename: 'x.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') },
    });
    expect(doc.status).toBe(201);
    expect((await t.request('DELETE', `/v2/invoices/${inv.id}`, { key })).status).toBe(204);
    expectError(await t.request('GET', `/v2/invoices/${inv.id}`, { key }), 410, new RegExp(inv.id));
    expectError(await t.request('PATCH', `/v2/invoices/${inv.id}`, { key, body: { invoiceStatus: 'paid' } }), 410);
    expectError(await t.request('DELETE', `/v2/invoices/${inv.id}`, { key }), 410);
    expectError(await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-01-2026', amount: '1.00' } }), 410, undefined, 'invoice');
    // the deleted invoice's document went with it
    expectError(await t.request('GET', `/v2/documents/${doc.body.id}`, { key }), 410);

    const inv2 = await createInvoice(t, key);
    const doc2 = await t.request('POST', `/v2/documents/${inv2.id}`, {
      key,
      body: { filename: 'y.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') },
    });
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
    const a = await t.request('POST', '/v2/customers', {
      key,
      body: { customerCode: 'E-ct1', name: 'A' },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(a.status).toBe(201);
    const b = await t.request('POST', '/v2/customers', { key, form: { CustomerCode: 'E-ct2', Name: 'B' } });
    expect(b.status).toBe(201);
    const hal = await t.request('POST', '/v2/customers', {
      key,
      body: { customerCode: 'E-ct3', name: 'C' },
      headers: { 'content-type': 'application/hal+json' },
    });
    expect(hal.status).toBe(201);
  });

  it('an empty body with a JSON content type is no body: DELETE works, POST says what is missing', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/v2/customers/${c.id}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
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
