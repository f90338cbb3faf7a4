// The invoice the benchmarks create for their files: POST /v2/invoices's body.
export const invoiceBody = (customer: string, invoiceNumber: string, invoiceTotal: string) => ({
  customer,
  invoiceNumber,
  invoiceDate: '01-02-2026',
  invoiceDuedate: '01-03-2026',
  invoiceTotal,
});
