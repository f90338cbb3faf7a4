// Credit notes are invoices with a negative total (docs/api.md, "Credit notes"). The rules for
// total, balance and payments of either sign, in one place. Pure.
import { DomainError } from './errors.ts';
import { formatCents } from './money.ts';

/**
 * An invoice's balance lies between 0.00 and its total, on the total's side: 0 <= balance <= total
 * for an invoice, total <= balance <= 0 for a credit note (422 `invoicebalance` otherwise).
 */
export function checkBalance(totalCents: number, balanceCents: number): void {
  const field = 'invoicebalance';
  if (totalCents >= 0) {
    if (balanceCents > totalCents) throw DomainError.unprocessable('The balance is higher than the invoice total', field);
    if (balanceCents < 0)
      throw DomainError.unprocessable(`The balance is below 0.00; only an invoice with a negative total (a credit note) has a negative balance`, field);
    return;
  }
  if (balanceCents < totalCents) throw DomainError.unprocessable(`The balance is below the credit note's total ${formatCents(totalCents)}`, field);
  if (balanceCents > 0)
    throw DomainError.unprocessable(`The balance of a credit note (total ${formatCents(totalCents)}) lies between its total and 0.00`, field);
}

/**
 * A payment moves the balance toward 0.00: a positive amount on an invoice, a negative one (a
 * refund paid out) on a credit note, never beyond the balance (422 `amount`). Returns the new
 * balance; at 0.00 the invoice is paid.
 */
export function balanceAfterPayment(totalCents: number, balanceCents: number, amountCents: number): number {
  if (amountCents === 0) throw DomainError.unprocessable('The amount must not be 0.00', 'amount');
  const credit = totalCents < 0 || balanceCents < 0;
  if (credit && amountCents > 0) {
    throw DomainError.unprocessable(
      `The invoice is a credit note (total ${formatCents(totalCents)}): a refund is a negative amount, such as -${formatCents(-balanceCents)}`,
      'amount',
    );
  }
  if (!credit && amountCents < 0)
    throw DomainError.unprocessable(
      'The amount must be more than 0.00; only a credit note (an invoice with a negative total) takes negative amounts',
      'amount',
    );
  if (Math.abs(amountCents) > Math.abs(balanceCents)) {
    throw DomainError.unprocessable(
      credit ? `The refund is more than the credit note's balance ${formatCents(balanceCents)}` : 'The amount is higher than the invoice balance',
      'amount',
    );
  }
  return balanceCents - amountCents;
}
