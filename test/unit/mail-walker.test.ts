import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEntity, parseMessage } from '../../src/channels/mail/message-parser.ts';
import { mayHoldFiles, walkMessage } from '../../src/channels/mail/message-walker.ts';
import { unwrapSignedData } from '../../src/formats/cms-container.ts';
import { readTnef } from '../../src/channels/mail/tnef-reader.ts';
import { uudecodeAll } from '../../src/channels/mail/uudecode.ts';
import { said, saying } from '../helpers/reasons.ts';

// test/fixtures/mail: made by make-fixtures.ts (MANIFEST.md says from what)
const fixture = (name: string) => readFileSync(new URL(`../fixtures/mail/${name}`, import.meta.url));
const pdfSha = (invoice: string) => sha(fixture(`pdfs/${invoice}.pdf`));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function walk(name: string) {
  const parsed = await parseMessage(fixture(name));
  return walkMessage(parsed.parts, parsed.text, parseEntity);
}

describe('the message walker finds every PDF, at any depth', () => {
  it.each([
    ['thunderbird-forward-attachment.eml', 'INV-FWD-1', ['Your invoice.eml']],
    ['outlook-forward-attachment.eml', 'INV-OL-1', ['the attached message']],
    ['forward-nested-twice.eml', 'INV-NEST-2', ['Fwd Invoice.eml', 'Invoice.eml']],
    ['forward-base64-encoded.eml', 'INV-B64FWD-1', ['Invoice.eml']],
    ['outlook-tnef.eml', 'INV-TNEF-1', ['winmail.dat']],
    ['uuencode-in-body.eml', 'INV-UU-1', []],
    ['x-uuencode-part.eml', 'INV-UUE-2', ['INV-UUE-2.pdf']],
    ['octet-stream-pdf.eml', 'INV-OCT-1', []],
  ])('%s: %s.pdf with its original bytes', async (file, invoice, via) => {
    const r = await walk(file);
    expect(r.problems).toEqual([]);
    expect(r.files).toHaveLength(1);
    expect(r.files[0]).toMatchObject({ filename: `${invoice}.pdf`, kind: 'pdf', via });
    expect(sha(r.files[0].bytes)).toBe(pdfSha(invoice));
  });

  it('unwraps S/MIME opaque-signed mail and says the signature was verified, also when labelled enveloped-data', async () => {
    for (const [file, invoice] of [
      ['smime-opaque-signed.eml', 'INV-SMIME-1'],
      ['smime-signed-labelled-enveloped.eml', 'INV-SMIME-2'],
    ]) {
      const r = await walk(file);
      expect(r.files, file).toHaveLength(1);
      expect(r.files[0]).toMatchObject({ filename: `${invoice}.pdf`, via: ['smime.p7m'], signature: 'verified' });
      expect(sha(r.files[0].bytes)).toBe(pdfSha(invoice));
    }
  });

  it('hands a CAdES .pdf.p7m over whole (intake unwraps it and records the signature), noting it verified', async () => {
    const r = await walk('cades-p7m-attachment.eml');
    expect(r.files).toHaveLength(1);
    expect(r.files[0]).toMatchObject({ filename: 'INV-P7M-1.pdf.p7m', kind: 'pdf', via: [], signature: 'verified' });
    const inside = unwrapSignedData(r.files[0].bytes);
    expect(inside && 'content' in inside && sha(inside.content)).toBe(pdfSha('INV-P7M-1'));
  });

  it('says "only unwrapped" when the signed content was altered', async () => {
    const raw = fixture('cades-p7m-attachment.eml').toString('latin1');
    // the base64 of a DER p7m: change one character inside the PDF's bytes (past the CMS header)
    const at = raw.indexOf('Content-Type: application/pkcs7-mime');
    const body = raw.indexOf('\r\n\r\n', at) + 4 + 400;
    const changed = raw.slice(0, body) + (raw[body] === 'A' ? 'B' : 'A') + raw.slice(body + 1);
    const parsed = await parseMessage(Buffer.from(changed, 'latin1'));
    const r = await walkMessage(parsed.parts, parsed.text, parseEntity);
    expect(r.files).toHaveLength(1);
    expect(r.files[0].signature).toBe('unverified');
  });

  it('names the container that held no PDF', async () => {
    const r = await walk('outlook-tnef-no-pdf.eml');
    expect(r.files).toEqual([]);
    expect(r.problems).toEqual([]);
    expect(r.empty).toEqual(['winmail.dat held no PDF']);
  });

  it('gives an encrypted p7m a reason of its own', async () => {
    const enveloped = fixture('cms/enveloped.der');
    const r = await walkMessage([{ filename: 'invoice.pdf.p7m', contentType: 'application/pkcs7-mime', content: enveloped }], undefined, parseEntity);
    expect(r.problems).toEqual([{ filename: 'invoice.pdf.p7m', reason: saying(/^invoice\.pdf\.p7m could not be opened: it is encrypted/) }]);
  });

  it('still reports a part named .pdf that is no PDF, and ignores detached signatures', async () => {
    const r = await walkMessage(
      [
        { filename: 'terms.pdf', contentType: 'application/pdf', content: Buffer.from('no pdf here') },
        { filename: 'smime.p7s', contentType: 'application/pkcs7-signature', content: fixture('cms/detached.der') },
      ],
      undefined,
      parseEntity,
    );
    expect(r).toEqual({ files: [], problems: [{ filename: 'terms.pdf', reason: said('The attachment terms.pdf is not a PDF') }], empty: [] });
  });

  it('tells the large-message path which parts to download by their first bytes', () => {
    const head = (name: string) => fixture(name).subarray(0, 2048);
    expect(mayHoldFiles({ filename: 'winmail.dat', contentType: 'application/ms-tnef', content: head('winmail-invoice.dat') })).toBe(true);
    expect(mayHoldFiles({ filename: 'x.p7m', contentType: 'application/octet-stream', content: head('cms/signed.der') })).toBe(true);
    expect(mayHoldFiles({ contentType: 'application/octet-stream', content: head('cms/signed.der') })).toBe(true);
    expect(mayHoldFiles({ filename: 'a.uue', contentType: 'application/octet-stream', content: Buffer.from('begin 644 a.pdf\n') })).toBe(true);
    expect(mayHoldFiles({ filename: 'Invoice.eml', contentType: 'message/rfc822', content: Buffer.from('From: a@b\r\n\r\n') })).toBe(true);
    expect(mayHoldFiles({ filename: 'photo.jpg', contentType: 'image/jpeg', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) })).toBe(false);
    expect(mayHoldFiles({ filename: 'smime.p7s', contentType: 'application/pkcs7-signature', content: head('cms/detached.der') })).toBe(false);
    expect(mayHoldFiles({ filename: 'data.bin', contentType: 'application/octet-stream', content: Buffer.from('plain bytes') })).toBe(false);
  });
});

describe('TNEF reader', () => {
  it('reads the long name from the MAPI properties, not the 8.3 title', () => {
    const t = readTnef(fixture('winmail-invoice.dat'));
    expect(t.damaged).toBeUndefined();
    expect(t.attachments.map((a) => a.filename)).toEqual(['INV-TNEF-1.pdf']);
    expect(sha(t.attachments[0].bytes)).toBe(pdfSha('INV-TNEF-1'));
  });

  it('keeps what it read before damage, and says so', () => {
    const whole = fixture('winmail-invoice.dat');
    const cut = readTnef(whole.subarray(0, whole.length - 40));
    expect(cut.damaged).toMatch(/runs past the end|truncated/);
    expect(readTnef(Buffer.from('not tnef at all'))).toEqual({ attachments: [], damaged: 'no TNEF signature' });
  });
});

describe('uudecode', () => {
  it('decodes classic and base64 blocks, with trailing spaces stripped by mailers', () => {
    const classic = fixture('uuencode-in-body.eml')
      .toString('latin1')
      .replace(/ +\r\n/g, '\r\n');
    const [file] = uudecodeAll(classic);
    expect(file.filename).toBe('INV-UU-1.pdf');
    expect(sha(file.bytes)).toBe(pdfSha('INV-UU-1'));
    const b64 = `begin-base64 644 x.pdf\n${Buffer.from('%PDF-1.4 hello').toString('base64')}\n====\n`;
    expect(uudecodeAll(b64)).toEqual([{ filename: 'x.pdf', bytes: Buffer.from('%PDF-1.4 hello') }]);
    expect(uudecodeAll('no blocks here\nbegin to wonder\n')).toEqual([]);
  });
});
