// The evidence the intake worker gathers for a file, built from an account's invoice numbers
// without a database: the same rules as IntakeProcessor's (whole name exact, then ignoring case;
// tokens only when the whole name names nothing), for the pure decision's tests.
import type { EinvoiceReading } from '../../src/domain/document-facts.ts';
import { isReplySubject, type MatchEvidence } from '../../src/domain/match-decision.ts';
import { deviceName, evidenceCandidates, looksLikeInvoiceNumber } from '../../src/domain/match-names.ts';

export interface FileCase {
  name: string;
  /** the account's invoice numbers */
  account: string[];
  einvoices?: EinvoiceReading[];
  subject?: string;
  messageFiles?: number;
}

export const invoiceIdOf = (n: string) => `inv_${Buffer.from(n).toString('hex')}`;

export function evidenceOf({ name, account, einvoices = [], subject, messageFiles = 1 }: FileCase): MatchEvidence {
  const found = account.map((n) => ({ id: invoiceIdOf(n), invoiceNumber: n }));
  const folded = found.filter((f) => f.invoiceNumber.toLowerCase() === name.toLowerCase());
  const whole = found.find((f) => f.invoiceNumber === name) ?? (folded.length === 1 ? folded[0] : undefined);
  return {
    name,
    nameIsNumber: looksLikeInvoiceNumber(name),
    nameIsDevice: deviceName(name),
    einvoices,
    found,
    byName: whole && { invoiceId: whole.id, invoiceNumber: whole.invoiceNumber, by: 'invoice_number' },
    nameTokens: whole ? [] : evidenceCandidates(name),
    subject:
      subject === undefined
        ? undefined
        : {
            text: subject,
            tokens: evidenceCandidates(subject),
            reply: isReplySubject(subject),
            manyFiles: messageFiles > 1 ? messageFiles : undefined,
          },
  };
}
