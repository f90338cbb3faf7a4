import { describe, expect, it } from 'vitest';
import { startUpSummary } from '../../src/app/start-up-summary.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { RunningService } from '../../src/app/start-service.ts';

const running = (apiUrl: string) => ({ apiUrl, httpUrl: apiUrl }) as RunningService;

describe('the start-up summary', () => {
  it("gives PUBLIC_URL's links, and says where the API listens beside them", () => {
    const config = loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://invoices.example.com/', ADMIN_TOKEN: 'adm_x', ROLES: 'api' });
    const { fields, text } = startUpSummary(config, running('http://0.0.0.0:8080'));
    expect(fields).toMatchObject({
      api: 'https://invoices.example.com/v2',
      docs: 'https://invoices.example.com/docs',
      dashboard: 'https://invoices.example.com/dashboard',
    });
    expect(text).toMatch(
      /API +https:\/\/invoices\.example\.com\/v2 +\(listening on http:\/\/0\.0\.0\.0:8080, plain HTTP: put a TLS-terminating proxy in front\)/,
    );
    expect(text).toContain('admin API https://invoices.example.com/admin');
  });

  it("without PUBLIC_URL: the API's own loopback address, with the port it got", () => {
    const config = loadConfig({ PORT: '0', ADMIN_TOKEN: 'adm_x', ROLES: 'api' });
    config.links.listening('http://127.0.0.1:43210');
    const { fields, text } = startUpSummary(config, running('http://127.0.0.1:43210'));
    expect(fields.dashboard).toBe('http://127.0.0.1:43210/dashboard');
    expect(text).toMatch(/API +http:\/\/127\.0\.0\.1:43210\/v2 +\(plain HTTP, this machine only\)/);
  });

  it('with the smtp role: where SMTP listens and a first swaks command; IMAP off is no longer "E-mail off"', () => {
    const config = loadConfig({ ADMIN_TOKEN: 'adm_x', ROLES: 'api,mail,smtp' });
    const { fields, text } = startUpSummary(config, { ...running('http://127.0.0.1:8080'), smtpPort: 2525 } as RunningService);
    expect(fields.smtp).toBe('127.0.0.1:2525');
    expect(text).toMatch(/^ {2}SMTP +127\.0\.0\.1:2525 +\(STARTTLS with a self-signed certificate\)$/m);
    expect(text).toContain("swaks --server 127.0.0.1:2525 --to <an account's import address> --attach @<invoice number>.pdf");
    expect(text).toMatch(/E-mail +IMAP off +\(mail comes in by SMTP below/);
    const off = startUpSummary(loadConfig({ ADMIN_TOKEN: 'adm_x', ROLES: 'api,smtp', SMTP_LISTEN: 'off' }), running('http://127.0.0.1:8080'));
    expect(off.text).toMatch(/^ {2}SMTP +off +\(SMTP_LISTEN=off\)$/m);
  });
});
