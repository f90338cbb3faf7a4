// The customer resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { Customer } from '../../../domain/models.ts';
import { self } from '../../hal.ts';

export const presentCustomer = (base: string, customer: Customer) => ({
  resource: 'customer' as const,
  id: customer.id,
  customerCode: customer.customerCode,
  number: customer.customerCode,
  name: customer.name,
  address: { address: customer.address, postalcode: customer.postalcode, city: customer.city, country: customer.country },
  contact: customer.contact,
  phone: customer.phone,
  mobile: customer.mobile,
  email: customer.email,
  invoiceEmail: customer.invoiceEmail,
  registrationNumber: customer.registrationNumber,
  language: customer.language,
  _links: self(base, `/v2/customers/${customer.id}`),
});
