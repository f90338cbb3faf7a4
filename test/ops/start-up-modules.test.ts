// What a start loads: the libraries only some starts need are loaded at their first use
// (docs/operations.md, "The embedded default, measured"). The modules a process of every role
// imports, then the packages Node has loaded: selfsigned (the FTPS certificate, once per DATA_DIR),
// nodemailer (the first invite e-mail), the TypeBox provider (only its types are used), the CMS reader (pkijs, asn1js: the first signed file) and
// fast-xml-parser (the first XML read) are not among them until used.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';

/** The packages (CommonJS and ES modules) that `script` leaves loaded in a fresh process. */
const loadedPackages = (script: string): string[] => {
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `
    import { createRequire, register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    // ES modules: every URL the loader loads, reported by a hook; CommonJS ones: require.cache
    const { port1, port2 } = new MessageChannel();
    const esm = [];
    port1.on('message', (url) => esm.push(url));
    port1.unref();
    register('data:text/javascript,' + encodeURIComponent('let port; export function initialize(d) { port = d.port; } export async function load(url, ctx, next) { port.postMessage(url); return next(url, ctx); }'), { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
    ${script}
    await new Promise((resolve) => setTimeout(resolve, 200)); // the hook's last messages
    const files = [...esm, ...Object.keys(createRequire(import.meta.url).cache)];
    const names = files.map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean);
    console.log(JSON.stringify([...new Set(names)]));`,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!);
};

describe('start-up modules', () => {
  it('a start of every role loads neither selfsigned nor nodemailer; making a certificate and sending an invite load them', async () => {
    const atStart = loadedPackages(`
      await Promise.all(['start-service', 'ftp-role', 'sftp-role', 'container'].map((m) => import('./src/app/' + m + '.ts')));`);
    // the check sees the packages the modules load, CommonJS (ssh2) and ES modules (bullmq)
    expect(atStart).toEqual(expect.arrayContaining(['ssh2', 'bullmq', 'ftp-srv']));
    expect(atStart).not.toContain('selfsigned');
    expect(atStart).not.toContain('nodemailer');
    // the schemas are built with typebox's Type alone; the Fastify provider (its compiler, value and
    // format modules, ajv-formats) is only a type
    expect(atStart).toContain('typebox');
    expect(atStart).not.toContain('@fastify/type-provider-typebox');
    const used = loadedPackages(`
      const { makeSelfSignedCert } = await import('./src/channels/ftp/self-signed-cert.ts');
      await makeSelfSignedCert({ commonName: 'test', days: 1 });
      const { smtpInviteMailer } = await import('./src/notifications/invite-mailer.ts');
      await smtpInviteMailer('smtp://127.0.0.1:1', 'a@example.com').sendText('b@example.com', 's', 't').catch(() => {});`);
    expect(used).toContain('selfsigned');
    expect(used).toContain('nodemailer');
  });

  it('a start loads neither the CMS reader nor the XML parser; sniffing a PDF does not either, a signed file and an XML do', async () => {
    const start = `await Promise.all(['start-service', 'ftp-role', 'sftp-role', 'container'].map((m) => import('./src/app/' + m + '.ts')));`;
    const plainPdf = loadedPackages(`${start}
      const { sniffPdf } = await import('./src/formats/pdf.ts');
      if (sniffPdf(new TextEncoder().encode('%PDF-1.7 ...'))) throw new Error('refused');`);
    expect(plainPdf).toEqual(expect.arrayContaining(['bullmq', 'fastify']));
    for (const lazy of ['pkijs', 'asn1js', 'fast-xml-parser']) expect(plainPdf).not.toContain(lazy);
    const used = loadedPackages(`${start}
      const fs = await import('node:fs');
      const { sniffPdf } = await import('./src/formats/pdf.ts');
      if (sniffPdf(new Uint8Array(fs.readFileSync('test/fixtures/mail/cms/signed.der')))) throw new Error('refused');
      if (sniffPdf(new TextEncoder().encode('<Invoice/>'))?.ok !== false) throw new Error('an XML without a number was taken');`);
    expect(used).toEqual(expect.arrayContaining(['pkijs', 'asn1js', 'fast-xml-parser']));
  });
});
