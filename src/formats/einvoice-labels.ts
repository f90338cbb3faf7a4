// The words of a rendered e-invoice (einvoice-render.ts) in English, German, Dutch and French,
// and which of them a document is shown in. Pure.
import type { EinvoiceModel } from './einvoice-model.ts';

export type Language = 'en' | 'de' | 'nl' | 'fr';

export interface Labels {
  invoice: string;
  creditNote: string;
  number: string;
  date: string;
  creditNumber: string;
  creditDate: string;
  dueDate: string;
  buyerReference: string;
  seller: string;
  buyer: string;
  vatId: string;
  position: string;
  description: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  vatBreakdown: string;
  category: string;
  rate: string;
  taxable: string;
  vat: string;
  net: string;
  vatTotal: string;
  grand: string;
  prepaid: string;
  due: string;
  paymentTerms: string;
  iban: string;
  paymentReference: string;
  notes: string;
  embedded: string;
  /** the line on each page; {file} is the embedded XML's name */
  rendered: string;
}

export const LABELS: Record<Language, Labels> = {
  en: {
    invoice: 'Invoice',
    creditNote: 'Credit note',
    number: 'Invoice number',
    date: 'Invoice date',
    creditNumber: 'Credit note number',
    creditDate: 'Credit note date',
    dueDate: 'Due date',
    buyerReference: 'Buyer reference',
    seller: 'Seller',
    buyer: 'Buyer',
    vatId: 'VAT ID',
    position: 'No.',
    description: 'Description',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    amount: 'Amount',
    vatBreakdown: 'VAT breakdown',
    category: 'Category',
    rate: 'Rate',
    taxable: 'Taxable amount',
    vat: 'VAT',
    net: 'Total without VAT',
    vatTotal: 'Total VAT',
    grand: 'Total with VAT',
    prepaid: 'Paid in advance',
    due: 'Amount due',
    paymentTerms: 'Payment terms',
    iban: 'IBAN',
    paymentReference: 'Payment reference',
    notes: 'Notes',
    embedded: 'The e-invoice as received: the original invoice',
    rendered: 'Rendered by invoice-intake from the e-invoice XML embedded in this PDF ({file}). That XML is the original invoice; this page only shows it.',
  },
  de: {
    invoice: 'Rechnung',
    creditNote: 'Gutschrift',
    number: 'Rechnungsnummer',
    date: 'Rechnungsdatum',
    creditNumber: 'Gutschriftsnummer',
    creditDate: 'Gutschriftsdatum',
    dueDate: 'Fällig am',
    buyerReference: 'Käuferreferenz',
    seller: 'Verkäufer',
    buyer: 'Käufer',
    vatId: 'USt-IdNr.',
    position: 'Pos.',
    description: 'Bezeichnung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    amount: 'Betrag',
    vatBreakdown: 'Umsatzsteuer',
    category: 'Kategorie',
    rate: 'Satz',
    taxable: 'Bemessungsgrundlage',
    vat: 'USt.',
    net: 'Summe netto',
    vatTotal: 'Summe USt.',
    grand: 'Gesamtbetrag',
    prepaid: 'Bereits gezahlt',
    due: 'Zahlbetrag',
    paymentTerms: 'Zahlungsbedingungen',
    iban: 'IBAN',
    paymentReference: 'Verwendungszweck',
    notes: 'Hinweise',
    embedded: 'Die E-Rechnung wie empfangen: die Originalrechnung',
    rendered:
      'Von invoice-intake aus der in diese PDF-Datei eingebetteten E-Rechnung (XML, {file}) erzeugt. Das XML ist die Originalrechnung; diese Seite zeigt sie nur an.',
  },
  nl: {
    invoice: 'Factuur',
    creditNote: 'Creditnota',
    number: 'Factuurnummer',
    date: 'Factuurdatum',
    creditNumber: 'Creditnotanummer',
    creditDate: 'Creditnotadatum',
    dueDate: 'Vervaldatum',
    buyerReference: 'Referentie koper',
    seller: 'Verkoper',
    buyer: 'Koper',
    vatId: 'Btw-nummer',
    position: 'Nr.',
    description: 'Omschrijving',
    quantity: 'Aantal',
    unitPrice: 'Prijs per eenheid',
    amount: 'Bedrag',
    vatBreakdown: 'Btw-specificatie',
    category: 'Categorie',
    rate: 'Tarief',
    taxable: 'Grondslag',
    vat: 'Btw',
    net: 'Totaal excl. btw',
    vatTotal: 'Totaal btw',
    grand: 'Totaal incl. btw',
    prepaid: 'Reeds betaald',
    due: 'Te betalen',
    paymentTerms: 'Betalingsvoorwaarden',
    iban: 'IBAN',
    paymentReference: 'Betalingskenmerk',
    notes: 'Opmerkingen',
    embedded: 'De e-factuur zoals ontvangen: de originele factuur',
    rendered:
      'Door invoice-intake weergegeven uit de e-factuur (XML, {file}) die in deze PDF is ingesloten. Die XML is de originele factuur; deze pagina toont haar alleen.',
  },
  fr: {
    invoice: 'Facture',
    creditNote: 'Avoir',
    number: 'Numéro de facture',
    date: 'Date de facture',
    creditNumber: "Numéro d'avoir",
    creditDate: "Date de l'avoir",
    dueDate: 'Échéance',
    buyerReference: "Référence de l'acheteur",
    seller: 'Vendeur',
    buyer: 'Acheteur',
    vatId: 'N° TVA',
    position: 'N°',
    description: 'Désignation',
    quantity: 'Quantité',
    unitPrice: 'Prix unitaire',
    amount: 'Montant',
    vatBreakdown: 'Ventilation de la TVA',
    category: 'Catégorie',
    rate: 'Taux',
    taxable: 'Base',
    vat: 'TVA',
    net: 'Total HT',
    vatTotal: 'Total TVA',
    grand: 'Total TTC',
    prepaid: 'Déjà payé',
    due: 'Net à payer',
    paymentTerms: 'Conditions de paiement',
    iban: 'IBAN',
    paymentReference: 'Référence de paiement',
    notes: 'Notes',
    embedded: 'La facture électronique telle que reçue : la facture originale',
    rendered:
      "Rendu par invoice-intake à partir de la facture électronique (XML, {file}) incorporée dans ce PDF. Ce XML est la facture originale ; cette page ne fait que l'afficher.",
  },
};

const BY_COUNTRY: Record<string, Language> = { DE: 'de', AT: 'de', CH: 'de', LI: 'de', NL: 'nl', BE: 'nl', FR: 'fr', LU: 'fr', MC: 'fr' };

/**
 * The language the document says it is in (CII's LanguageID), else the seller's country's (the
 * service keeps no language per account), else English.
 */
export function languageOf(m: EinvoiceModel): Language {
  const said = m.language?.slice(0, 2).toLowerCase();
  if (said && said in LABELS) return said as Language;
  return BY_COUNTRY[m.seller.country?.toUpperCase() ?? ''] ?? 'en';
}
