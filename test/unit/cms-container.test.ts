import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unwrapSignedData } from '../../src/formats/cms-container.ts';

// made by OpenSSL (test/fixtures/mail/cms/make.sh), each around invoice.pdf
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/mail/cms/${name}`, import.meta.url)));
const pdf = fixture('invoice.pdf');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function unwrapped(name: string | Uint8Array) {
  const result = unwrapSignedData(typeof name === 'string' ? fixture(name) : name);
  if (!result || 'error' in result) throw new Error(`expected content, got ${JSON.stringify(result)}`);
  return result;
}

describe('CMS SignedData unwrapping', () => {
  it('unwraps and verifies DER, PEM and bare Base64 alike', () => {
    for (const name of ['signed.der', 'signed.pem', 'signed.b64']) {
      const r = unwrapped(name);
      expect(sha(r.content), name).toBe(sha(pdf));
      expect(r.verified, name).toBe(true);
    }
  });

  it('reads BER with indefinite lengths and a chunked (constructed) content string (openssl -stream)', () => {
    const r = unwrapped('signed-ber.der');
    expect(sha(r.content)).toBe(sha(pdf));
    expect(r.verified).toBe(true);
  });

  it('verifies an ECDSA signature', () => {
    expect(unwrapped('signed-ec.der')).toMatchObject({ verified: true });
  });

  it('unwraps a file signed twice (SignedData inside SignedData) down to the PDF', () => {
    const r = unwrapped('double.der');
    expect(sha(r.content)).toBe(sha(pdf));
    expect(r.verified).toBe(true);
  });

  it('only unwraps when the container carries no certificate to check against', () => {
    const r = unwrapped('signed-nocerts.der');
    expect(sha(r.content)).toBe(sha(pdf));
    expect(r.verified).toBe(false);
  });

  it('says not verified when the content was changed after signing', () => {
    const bytes = fixture('signed.der').slice();
    bytes[Buffer.from(bytes).indexOf('%PDF-') + 20] ^= 0x01; // a byte of the PDF inside
    const r = unwrapped(bytes);
    expect(sha(r.content)).not.toBe(sha(pdf));
    expect(r.verified).toBe(false);
  });

  it('says not verified when the signature itself was damaged', () => {
    const bytes = fixture('signed.der').slice();
    bytes[bytes.length - 5] ^= 0xff; // inside the signature value, the last field
    expect(unwrapped(bytes).verified).toBe(false);
  });

  it('gives a reason for CMS that holds nothing to take', () => {
    expect(unwrapSignedData(fixture('detached.der'))).toEqual({ error: expect.stringMatching(/detached signature/) });
    expect(unwrapSignedData(fixture('enveloped.der'))).toEqual({ error: expect.stringMatching(/encrypted/) });
    const truncated = fixture('signed.der').slice(0, 300);
    expect(unwrapSignedData(truncated)).toEqual({ error: expect.stringMatching(/damaged/) });
  });

  it('is undefined for bytes that are no CMS container', () => {
    expect(unwrapSignedData(pdf)).toBeUndefined();
    expect(unwrapSignedData(new Uint8Array(0))).toBeUndefined();
    expect(unwrapSignedData(Buffer.from('PK\u0003\u0004 a zip'))).toBeUndefined();
    expect(unwrapSignedData(Buffer.from('Hello, this is a plain text attachment.'))).toBeUndefined();
    expect(unwrapSignedData(Buffer.from('QUJDRA=='))).toBeUndefined(); // Base64, but not of DER
    // a DER certificate is a SEQUENCE too, but no ContentInfo
    const cert = Buffer.from(readFileSync(new URL('../fixtures/mail/cms/signed.pem', import.meta.url), 'latin1').replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(unwrapSignedData(cert.subarray(cert.indexOf(Buffer.from([0x30, 0x82]), 60)))).toBeUndefined();
  });
});
