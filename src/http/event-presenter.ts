// The `data` of a webhook event: the resource as the API's GET shows it, with links on PUBLIC_URL
// (an event has no request to take a host from), else the API's own loopback address.
import type { Config } from '../config/config.ts';
import type { EventPresenter } from '../domain/webhooks.ts';
import { presentDocument } from './resources/documents/presenter.ts';
import { presentInvoice } from './resources/invoices/presenter.ts';
import { presentPaymentItem } from './resources/payments/presenter.ts';
import { presentImport } from './resources/imports/presenter.ts';
import { presentWebhook } from './resources/webhooks/presenter.ts';

export function eventPresenter(config: Pick<Config, 'links'>): EventPresenter {
  return (s) => {
    const base = config.links.base; // read per event: the API's port is known once it listens
    switch (s.resource) {
      case 'import':
        return presentImport(base, s.record);
      case 'document':
        return presentDocument(base, s.document);
      case 'invoice':
        return presentInvoice(base, s.invoice);
      case 'payment':
        return presentPaymentItem(base, s.payment);
      case 'webhook':
        return presentWebhook(base, s.webhook);
    }
  };
}
