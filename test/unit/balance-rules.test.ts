import { describe, expect, it } from 'vitest';
import { balanceAfterPayment, checkBalance } from '../../src/domain/balance-rules.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { thrown } from '../helpers/thrown.ts';

const error = (fn: () => unknown) => thrown(fn, DomainError);

describe("checkBalance: the balance lies between 0.00 and the total, on the total's side", () => {
  it.each([
    [48000, 48000],
    [48000, 0],
    [48000, 100],
    [0, 0],
    [-23347, -23347],
    [-23347, 0],
    [-23347, -100],
  ])('total %i, balance %i: accepted', (total, balance) => {
    expect(() => checkBalance(total, balance)).not.toThrow();
  });

  it.each([
    [48000, 48001, 'The balance is higher than the invoice total'],
    [48000, -1, 'The balance is below 0.00; only an invoice with a negative total (a credit note) has a negative balance'],
    [0, -1, 'The balance is below 0.00; only an invoice with a negative total (a credit note) has a negative balance'],
    [-23347, -23348, "The balance is below the credit note's total -233.47"],
    [-23347, 1, 'The balance of a credit note (total -233.47) lies between its total and 0.00'],
  ])('total %i, balance %i: 422 invoicebalance', (total, balance, detail) => {
    expect(error(() => checkBalance(total, balance))).toMatchObject({ kind: 'unprocessable', field: 'invoicebalance', detail });
  });
});

describe('balanceAfterPayment: a payment moves the balance toward 0.00', () => {
  it.each([
    [48000, 48000, 10000, 38000],
    [48000, 38000, 38000, 0],
    [-23347, -23347, -3347, -20000],
    [-23347, -20000, -20000, 0],
    [-879, -879, -879, 0],
  ])('total %i, balance %i, payment %i: balance %i', (total, balance, amount, after) => {
    expect(balanceAfterPayment(total, balance, amount)).toBe(after);
  });

  it.each([
    [48000, 48000, 0, 'The amount must not be 0.00'],
    [-23347, -23347, 0, 'The amount must not be 0.00'],
    [48000, 48000, -100, 'The amount must be more than 0.00; only a credit note (an invoice with a negative total) takes negative amounts'],
    [-23347, -23347, 100, 'The invoice is a credit note (total -233.47): a refund is a negative amount, such as -233.47'],
    [48000, 3000, 3001, 'The amount is higher than the invoice balance'],
    [-23347, -3000, -3001, "The refund is more than the credit note's balance -30.00"],
  ])('total %i, balance %i, payment %i: 422 amount', (total, balance, amount, detail) => {
    expect(error(() => balanceAfterPayment(total, balance, amount))).toMatchObject({ kind: 'unprocessable', field: 'amount', detail });
  });
});
