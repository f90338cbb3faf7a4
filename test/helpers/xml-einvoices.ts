// XML e-invoices for tests, written here in the two EN 16931 syntaxes the way generators write
// them: UN/CEFACT CII (XRechnung CII, Factur-X) and OASIS UBL 2.1 (XRechnung UBL, Peppol BIS 3),
// invoices and credit notes, with parties, lines, a VAT breakdown and totals computed in cents.
// (Public sample collections are measured outside the repository: docs/matching.md.)

interface Party {
  name: string;
  street: string;
  zip: string;
  city: string;
  country: string;
  vatId?: string;
}
export interface Line {
  name: string;
  quantity: number;
  unit: string;
  priceCents: number;
  vatRate: number;
}

export interface SampleInvoice {
  label: string;
  syntax: 'cii' | 'ubl';
  creditNote?: boolean;
  number: string;
  issueDate: string;
  dueDate?: string;
  currency: string;
  /** BT-24 */
  specification: string;
  buyerReference?: string;
  seller: Party;
  buyer: Party;
  lines: Line[];
  prepaidCents?: number;
  paymentTerms?: string;
  iban?: string;
  note?: string;
}

const XRECHNUNG = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
const PEPPOL = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const lineNet = (l: Line) => Math.round(l.quantity * l.priceCents);
const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The totals a sample states: net, VAT by rate, grand total (BT-112), amount due (BT-115). */
export function totalsOf(s: SampleInvoice) {
  const net = s.lines.reduce((a, l) => a + lineNet(l), 0);
  const rates = [...new Set(s.lines.map((l) => l.vatRate))];
  const vat = rates.map((rate) => {
    const base = s.lines.filter((l) => l.vatRate === rate).reduce((a, l) => a + lineNet(l), 0);
    return { rate, base, amount: Math.round((base * rate) / 100) };
  });
  const vatTotal = vat.reduce((a, v) => a + v.amount, 0);
  return { net, vat, vatTotal, grand: net + vatTotal, due: net + vatTotal - (s.prepaidCents ?? 0) };
}

export const SAMPLES: SampleInvoice[] = [
  {
    label: 'XRechnung UBL, a German public-sector invoice',
    syntax: 'ubl',
    number: 'RE-2026-04711',
    issueDate: '2026-04-04',
    dueDate: '2026-05-04',
    currency: 'EUR',
    specification: XRECHNUNG,
    buyerReference: '04011000-12345-03',
    seller: { name: 'Müller & Söhne Büroausstattung GmbH', street: 'Königstraße 12', zip: '70173', city: 'Stuttgart', country: 'DE', vatId: 'DE123456789' },
    buyer: { name: 'Stadtverwaltung Weißenburg', street: 'Marktplatz 1', zip: '91781', city: 'Weißenburg i. Bay.', country: 'DE' },
    lines: [
      { name: 'Bürostuhl ergonomisch', quantity: 4, unit: 'H87', priceCents: 28879, vatRate: 19 },
      { name: 'Lieferung und Montage', quantity: 1, unit: 'C62', priceCents: 2607, vatRate: 19 },
    ],
    paymentTerms: 'Zahlbar innerhalb von 30 Tagen ohne Abzug.',
    iban: 'DE02120300000000202051',
  },
  {
    label: 'XRechnung CII with two VAT rates',
    syntax: 'cii',
    number: '2026/07/0042',
    issueDate: '2026-07-01',
    currency: 'EUR',
    specification: XRECHNUNG,
    buyerReference: '991-01234-56',
    seller: { name: 'Verlag Nordlicht KG', street: 'Hafenstraße 3', zip: '20457', city: 'Hamburg', country: 'DE', vatId: 'DE987654321' },
    buyer: { name: 'Landesbibliothek', street: 'Schlossplatz 2', zip: '24103', city: 'Kiel', country: 'DE' },
    lines: [
      { name: 'Zeitschrift Jahresabonnement', quantity: 1, unit: 'XPP', priceCents: 28879, vatRate: 7 },
      { name: 'Porto + Versandkosten', quantity: 1, unit: 'XPP', priceCents: 2607, vatRate: 19 },
    ],
    paymentTerms: 'Zahlbar sofort ohne Abzug.',
    iban: 'DE75512108001245126199',
    note: 'Es gelten unsere Allgemeinen Geschäftsbedingungen.',
  },
  {
    label: 'EN 16931 CII from a Dutch wholesaler, many lines',
    syntax: 'cii',
    number: '12115118',
    issueDate: '2026-01-09',
    dueDate: '2026-01-23',
    currency: 'EUR',
    specification: 'urn:cen.eu:en16931:2017',
    seller: { name: 'De Koksmaat B.V.', street: 'Postbus 71', zip: '1950 AB', city: 'Velsen-Noord', country: 'NL', vatId: 'NL820098395B01' },
    buyer: { name: 'Snackbar ODIN 59', street: 'Postbus 367', zip: '1960 AJ', city: 'Heemskerk', country: 'NL' },
    lines: Array.from({ length: 24 }, (_, i) => ({
      name: ['PATAT FRITES 10MM 10KG', 'KAAS 50PL. JONG BEL. 1KG', 'POT KETCHUP 3 LT', 'KOFFIE BLIK 3,5KG'][i % 4],
      quantity: 1 + (i % 3),
      unit: 'H87',
      priceCents: 995 + i * 37,
      vatRate: i % 5 === 0 ? 21 : 9,
    })),
    paymentTerms: 'Betaling binnen 14 dagen netto.',
    iban: 'NL57RABO0107307510',
  },
  {
    label: 'Factur-X CII from France, partly prepaid',
    syntax: 'cii',
    number: 'FA-2026-0017',
    issueDate: '2026-03-15',
    dueDate: '2026-04-14',
    currency: 'EUR',
    specification: 'urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended',
    seller: { name: 'Atelier Lefèvre SARL', street: '12 rue de la Paix', zip: '75002', city: 'Paris', country: 'FR', vatId: 'FR32123456789' },
    buyer: { name: 'Hôtel Côte d’Azur', street: '3 promenade des Anglais', zip: '06000', city: 'Nice', country: 'FR', vatId: 'FR61987654321' },
    lines: [{ name: 'Rénovation de la façade', quantity: 1, unit: 'C62', priceCents: 1000000, vatRate: 20 }],
    prepaidCents: 600000,
    paymentTerms: 'Acompte de 6 000,00 € versé le 1er mars.',
    iban: 'FR7630006000011234567890189',
  },
  {
    label: 'Peppol BIS 3 credit note from the UK to Sweden',
    syntax: 'ubl',
    creditNote: true,
    number: 'CN-2026-0005',
    issueDate: '2026-02-13',
    currency: 'GBP',
    specification: PEPPOL,
    buyerReference: '0150abc',
    seller: { name: 'SupplierTradingName Ltd.', street: 'Main street 1', zip: 'GB 123 EW', city: 'London', country: 'GB', vatId: 'GB123243412' },
    buyer: { name: 'BuyerTradingName AB', street: 'Hovedgatan 32', zip: '456 34', city: 'Stockholm', country: 'SE', vatId: 'SE459837593701' },
    lines: [{ name: 'Consulting days returned', quantity: 3, unit: 'DAY', priceCents: 40000, vatRate: 25 }],
    paymentTerms: 'Credited to your account within 10 days.',
  },
  {
    label: 'Peppol BIS 3 invoice with a number holding a slash and a space',
    syntax: 'ubl',
    number: '018304 / 28865',
    issueDate: '2026-05-31',
    dueDate: '2026-06-30',
    currency: 'EUR',
    specification: PEPPOL,
    seller: { name: 'Łódź Trading Sp. z o.o.', street: 'ul. Piotrkowska 104', zip: '90-926', city: 'Łódź', country: 'PL', vatId: 'PL7251234567' },
    buyer: { name: 'Ελληνικά Τρόφιμα Α.Ε.', street: 'Οδός Ερμού 5', zip: '105 63', city: 'Αθήνα', country: 'GR', vatId: 'EL123456789' },
    lines: [{ name: 'Pierogi, frozen, 1 kg', quantity: 120, unit: 'KGM', priceCents: 455, vatRate: 23 }],
  },
];

/** The sample as its syntax writes it. */
export function sampleXml(s: SampleInvoice): string {
  return s.syntax === 'cii' ? cii(s) : ubl(s);
}

function cii(s: SampleInvoice): string {
  const t = totalsOf(s);
  const d = (iso: string) => `<udt:DateTimeString format="102">${iso.replace(/-/g, '')}</udt:DateTimeString>`;
  const party = (p: Party) => `<ram:Name>${esc(p.name)}</ram:Name>
        <ram:PostalTradeAddress><ram:PostcodeCode>${esc(p.zip)}</ram:PostcodeCode><ram:LineOne>${esc(p.street)}</ram:LineOne><ram:CityName>${esc(p.city)}</ram:CityName><ram:CountryID>${p.country}</ram:CountryID></ram:PostalTradeAddress>
        ${p.vatId ? `<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">${p.vatId}</ram:ID></ram:SpecifiedTaxRegistration>` : ''}`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${s.specification}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument>
    <ram:ID>${esc(s.number)}</ram:ID><ram:TypeCode>${s.creditNote ? 381 : 380}</ram:TypeCode>
    <ram:IssueDateTime>${d(s.issueDate)}</ram:IssueDateTime>
    ${s.note ? `<ram:IncludedNote><ram:Content>${esc(s.note)}</ram:Content></ram:IncludedNote>` : ''}
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    ${s.lines
      .map(
        (l, i) => `<ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:LineID>${i + 1}</ram:LineID></ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct><ram:Name>${esc(l.name)}</ram:Name></ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>${money(l.priceCents)}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="${l.unit}">${l.quantity}</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>
        <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>${l.vatRate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${money(lineNet(l))}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>
      </ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>`,
      )
      .join('\n    ')}
    <ram:ApplicableHeaderTradeAgreement>
      ${s.buyerReference ? `<ram:BuyerReference>${s.buyerReference}</ram:BuyerReference>` : ''}
      <ram:SellerTradeParty>${party(s.seller)}</ram:SellerTradeParty>
      <ram:BuyerTradeParty>${party(s.buyer)}</ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeDelivery/>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>${s.currency}</ram:InvoiceCurrencyCode>
      ${s.iban ? `<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode><ram:PayeePartyCreditorFinancialAccount><ram:IBANID>${s.iban}</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>` : ''}
      ${t.vat.map((v) => `<ram:ApplicableTradeTax><ram:CalculatedAmount>${money(v.amount)}</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>${money(v.base)}</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>${v.rate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>`).join('\n      ')}
      ${s.paymentTerms || s.dueDate ? `<ram:SpecifiedTradePaymentTerms>${s.paymentTerms ? `<ram:Description>${esc(s.paymentTerms)}</ram:Description>` : ''}${s.dueDate ? `<ram:DueDateDateTime>${d(s.dueDate)}</ram:DueDateDateTime>` : ''}</ram:SpecifiedTradePaymentTerms>` : ''}
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>${money(t.net)}</ram:LineTotalAmount><ram:TaxBasisTotalAmount>${money(t.net)}</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="${s.currency}">${money(t.vatTotal)}</ram:TaxTotalAmount><ram:GrandTotalAmount>${money(t.grand)}</ram:GrandTotalAmount>
        ${s.prepaidCents ? `<ram:TotalPrepaidAmount>${money(s.prepaidCents)}</ram:TotalPrepaidAmount>` : ''}<ram:DuePayableAmount>${money(t.due)}</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
`;
}

function ubl(s: SampleInvoice): string {
  const t = totalsOf(s);
  const root = s.creditNote ? 'CreditNote' : 'Invoice';
  const amount = (tag: string, cents: number) => `<cbc:${tag} currencyID="${s.currency}">${money(cents)}</cbc:${tag}>`;
  const party = (p: Party) => `<cac:Party>
      <cac:PartyName><cbc:Name>${esc(p.name)}</cbc:Name></cac:PartyName>
      <cac:PostalAddress><cbc:StreetName>${esc(p.street)}</cbc:StreetName><cbc:CityName>${esc(p.city)}</cbc:CityName><cbc:PostalZone>${esc(p.zip)}</cbc:PostalZone><cac:Country><cbc:IdentificationCode>${p.country}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      ${p.vatId ? `<cac:PartyTaxScheme><cbc:CompanyID>${p.vatId}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` : ''}
      <cac:PartyLegalEntity><cbc:RegistrationName>${esc(p.name)}</cbc:RegistrationName></cac:PartyLegalEntity>
    </cac:Party>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>${s.specification}</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>${esc(s.number)}</cbc:ID>
  <cbc:IssueDate>${s.issueDate}</cbc:IssueDate>
  ${s.dueDate && !s.creditNote ? `<cbc:DueDate>${s.dueDate}</cbc:DueDate>` : ''}
  <cbc:${root}TypeCode>${s.creditNote ? 381 : 380}</cbc:${root}TypeCode>
  ${s.note ? `<cbc:Note>${esc(s.note)}</cbc:Note>` : ''}
  <cbc:DocumentCurrencyCode>${s.currency}</cbc:DocumentCurrencyCode>
  ${s.buyerReference ? `<cbc:BuyerReference>${s.buyerReference}</cbc:BuyerReference>` : ''}
  <cac:AccountingSupplierParty>${party(s.seller)}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party(s.buyer)}</cac:AccountingCustomerParty>
  ${s.iban ? `<cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cbc:PaymentID>${esc(s.number)}</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>${s.iban}</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>` : ''}
  ${s.paymentTerms ? `<cac:PaymentTerms><cbc:Note>${esc(s.paymentTerms)}</cbc:Note></cac:PaymentTerms>` : ''}
  <cac:TaxTotal>${amount('TaxAmount', t.vatTotal)}
    ${t.vat.map((v) => `<cac:TaxSubtotal>${amount('TaxableAmount', v.base)}${amount('TaxAmount', v.amount)}<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>${v.rate}</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>`).join('\n    ')}
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>${amount('LineExtensionAmount', t.net)}${amount('TaxExclusiveAmount', t.net)}${amount('TaxInclusiveAmount', t.grand)}${s.prepaidCents ? amount('PrepaidAmount', s.prepaidCents) : ''}${amount('PayableAmount', t.due)}</cac:LegalMonetaryTotal>
  ${s.lines
    .map(
      (l, i) => `<cac:${root}Line>
    <cbc:ID>${i + 1}</cbc:ID>
    <cbc:${s.creditNote ? 'Credited' : 'Invoiced'}Quantity unitCode="${l.unit}">${l.quantity}</cbc:${s.creditNote ? 'Credited' : 'Invoiced'}Quantity>
    ${amount('LineExtensionAmount', lineNet(l))}
    <cac:Item><cbc:Name>${esc(l.name)}</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>${l.vatRate}</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price>${amount('PriceAmount', l.priceCents)}</cac:Price>
  </cac:${root}Line>`,
    )
    .join('\n  ')}
</${root}>
`;
}
