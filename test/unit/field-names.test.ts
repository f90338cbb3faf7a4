import { describe, expect, it } from 'vitest';
import { fieldNameMap, lowercaseKeys, normaliseFields } from '../../src/http/plugins/field-names.ts';

const names = fieldNameMap(['customerCode', 'name', 'invoiceEmail', 'registrationNumber'], { number: 'customerCode' });

describe('field-name normalisation', () => {
  it('maps any case to the schema spelling', () => {
    expect(normaliseFields({ CustomerCode: 'K1', NAME: 'n', invoiceemail: 'a@b.nl', RegistrationNumber: '1' }, names)).toEqual({
      customerCode: 'K1',
      name: 'n',
      invoiceEmail: 'a@b.nl',
      registrationNumber: '1',
    });
  });

  it('accepts aliases (number for customerCode) in any case', () => {
    expect(normaliseFields({ Number: 'K2', Name: 'n' }, names)).toEqual({ customerCode: 'K2', name: 'n' });
  });

  it('keeps the first of two spellings of one field and drops unknown fields', () => {
    expect(normaliseFields({ name: 'first', Name: 'second', CustomerCode: 'a', number: 'b', extra: 1, __proto__x: 2 }, names)).toEqual({
      name: 'first',
      customerCode: 'a',
    });
  });

  it('does not let __proto__ through', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "name": "n"}');
    const out = normaliseFields(body, names) as Record<string, unknown>;
    expect(out).toEqual({ name: 'n' });
    // toEqual compares own keys only: a copied __proto__ would be the output's prototype
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
  });

  it('passes non-objects through for the schema to refuse', () => {
    expect(normaliseFields(null, names)).toBeNull();
    expect(normaliseFields([1, 2], names)).toEqual([1, 2]);
    expect(normaliseFields('text', names)).toBe('text');
  });

  it('lowercases query names', () => {
    expect(lowercaseKeys({ Limit: '5', FROM: 'x', InvoiceStatus: 'paid' })).toEqual({ limit: '5', from: 'x', invoicestatus: 'paid' });
  });
});
