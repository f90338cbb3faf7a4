// The FTP channel's pure decisions: upload names, lockout policy, TLS policy, completeness.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureDelayMs, lockedSubject, lockoutKeys, MAX_DELAY_MS, newlyLocked, normalizeAddress } from '../../src/channels/transfer/lockout-policy.ts';
import { ftpTlsPolicy } from '../../src/channels/ftp/ftp-tls-policy.ts';
import { PLAIN_FTP_REFUSAL, plainFtpRefusal } from '../../src/domain/plain-ftp.ts';
import {
  completeDespiteReset,
  looksLikeCompletePdf,
  looksLikeCompleteXml,
  looksLikeCompleteZip,
  settleDelayMs,
} from '../../src/channels/ftp/upload-completeness.ts';
import { ROOT } from '../../testkit/paths.ts';
import { classifyUploadName, clientBaseName, isRootPath } from '../../src/channels/transfer/upload-names.ts';
import { pasvReply, PortRange } from '../../src/channels/ftp/passive-connector.ts';

describe('upload names', () => {
  it.each([
    ['F-2026-001.pdf', 'final', 'F-2026-001.pdf'],
    ['inv_abc.PDF', 'final', 'inv_abc.PDF'],
    ['/F-1.pdf', 'final', 'F-1.pdf'],
    ['./F-1.pdf', 'final', 'F-1.pdf'],
    ['factuur 12 (kopie).pdf', 'final', 'factuur 12 (kopie).pdf'],
    ['F-1.pdf.filepart', 'temp', 'F-1.pdf.filepart'],
    ['F-1.pdf.part', 'temp', 'F-1.pdf.part'],
    ['upload-77.tmp', 'temp', 'upload-77.tmp'],
    ['F-1.TMP', 'temp', 'F-1.TMP'],
    ['.in.F-1.pdf', 'temp', '.in.F-1.pdf'],
  ])('%s is %s', (raw, kind, name) => {
    expect(classifyUploadName(raw)).toEqual({ kind, name });
  });

  it.each([
    ['../F-1.pdf', /path parts/],
    ['sub/F-1.pdf', /path parts/],
    ['..\\F-1.pdf', /path parts/],
    ['//server/F-1.pdf', /path parts/],
    ['/etc/passwd.pdf', /path parts/],
    ['F-1.txt', /Only PDF files/],
    ['F-1.pdf.exe', /Only PDF files/],
    ['F-1', /Only PDF files/],
    ['.pdf', /Only PDF files/],
    ['.tmp', /Only PDF files/],
    ['', /required/],
    [null, /required/],
    ['..', /required/],
    ['F\u0000.pdf', /control characters/],
    ['F\r\n.pdf', /control characters/],
    [`${'x'.repeat(197)}.pdf`, /longer than 200/],
  ])('%j is refused', (raw, reason) => {
    const v = classifyUploadName(raw as string);
    expect(v.kind).toBe('refused');
    expect(v.kind === 'refused' && v.reason).toMatch(reason);
  });

  it('takes names of up to 200 characters', () => {
    expect(clientBaseName(`${'x'.repeat(196)}.pdf`)).toEqual({ ok: true, name: `${'x'.repeat(196)}.pdf` });
  });

  it('knows the names of the only directory', () => {
    for (const p of [undefined, null, '', '.', '/', './', '-a', '-la']) expect(isRootPath(p as string)).toBe(true);
    for (const p of ['sub', '/sub', '..', 'x.pdf']) expect(isRootPath(p)).toBe(false);
  });
});

describe('lockout policy', () => {
  const s = { attempts: 3, lockoutMs: 60_000 };

  it('locks the address or the user at the configured number of failures', () => {
    expect(lockedSubject({ address: 2, user: 2 }, s)).toBeUndefined();
    expect(lockedSubject({ address: 3, user: 0 }, s)).toBe('address');
    expect(lockedSubject({ address: 0, user: 3 }, s)).toBe('user');
    expect(lockedSubject({ address: 5, user: 9 }, s)).toBe('address');
  });

  it('reports a lockout once, at the failure that reaches the limit', () => {
    expect(newlyLocked({ address: 2, user: 1 }, s)).toEqual([]);
    expect(newlyLocked({ address: 3, user: 1 }, s)).toEqual(['address']);
    expect(newlyLocked({ address: 3, user: 3 }, s)).toEqual(['address', 'user']);
    expect(newlyLocked({ address: 4, user: 1 }, s)).toEqual([]);
  });

  it('slows each failure down more, up to a cap', () => {
    expect(failureDelayMs(0)).toBe(0);
    expect(failureDelayMs(1)).toBe(250);
    expect(failureDelayMs(2)).toBe(500);
    expect(failureDelayMs(3)).toBe(1000);
    expect(failureDelayMs(50)).toBe(MAX_DELAY_MS);
  });

  it('keys: IPv4-mapped addresses are IPv4, user names are encoded and cut, all under the prefix', () => {
    expect(normalizeAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeAddress('2001:DB8::1')).toBe('2001:db8::1');
    expect(normalizeAddress(undefined)).toBe('unknown');
    const k = lockoutKeys('ii', '::ffff:10.1.2.3', 'Bob Smith:*');
    expect(k).toEqual({ address: 'ii:ftp:login-failures:addr:10.1.2.3', user: 'ii:ftp:login-failures:user:bob%20smith%3A*' });
    expect(lockoutKeys('ii', '1.2.3.4', 'x'.repeat(1000)).user.length).toBeLessThan(200);
  });
});

describe('TLS policy', () => {
  it('requires TLS whenever a certificate is configured, unless plain is allowed', () => {
    expect(ftpTlsPolicy({ hasCertificate: true, allowPlain: false })).toEqual({ ok: true, requireTls: true });
    expect(ftpTlsPolicy({ hasCertificate: true, allowPlain: true })).toEqual({ ok: true, requireTls: false });
    expect(ftpTlsPolicy({ hasCertificate: true, allowPlain: true, requireTls: true })).toEqual({ ok: true, requireTls: true });
  });

  it('runs plain FTP only when FTP_ALLOW_PLAIN=true', () => {
    expect(ftpTlsPolicy({ hasCertificate: false, allowPlain: true })).toEqual({ ok: true, requireTls: false });
    expect(ftpTlsPolicy({ hasCertificate: false, allowPlain: false })).toMatchObject({ ok: false, problem: expect.stringMatching(/FTP_ALLOW_PLAIN/) });
    expect(ftpTlsPolicy({ hasCertificate: true, allowPlain: false, requireTls: false })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/FTP_ALLOW_PLAIN/),
    });
    expect(ftpTlsPolicy({ hasCertificate: false, allowPlain: true, requireTls: true })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/TLS_CERT/),
    });
  });
});

describe('plain FTP logins (issue 44)', () => {
  const scope = { accountId: 'acc_1', mode: 'live' as const };
  const upload = (networks: string[]) => ({ ...scope, uploadKey: { id: 'upk_1', name: 'Ricoh', networks } });
  it('takes only an upload key limited to networks; the API key and an unrestricted upload key are told to use FTPS', () => {
    expect(plainFtpRefusal(false, upload(['192.0.2.0/24']))).toBeUndefined();
    expect(plainFtpRefusal(false, upload([]))).toBe(PLAIN_FTP_REFUSAL);
    expect(plainFtpRefusal(false, scope)).toBe(PLAIN_FTP_REFUSAL);
    expect(PLAIN_FTP_REFUSAL).toMatch(/network-limited upload key.*FTPS/);
  });

  it('over TLS every key may log in', () => {
    for (const s of [scope, upload([]), upload(['10.0.0.0/8'])]) expect(plainFtpRefusal(true, s)).toBeUndefined();
  });
});

/** A file as the FTP channel sees its ends (the whole file here: the head and tail it keeps are longer than these tests need). */
const ends = (b: Buffer) => ({ head: b, tail: b });

describe('upload completeness', () => {
  it('trusts files that end like a PDF at once, and waits for the others', () => {
    const complete = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
    expect(looksLikeCompletePdf(complete)).toBe(true);
    expect(looksLikeCompletePdf(Buffer.concat([complete, Buffer.alloc(900, 0x0a)]))).toBe(true);
    expect(looksLikeCompletePdf(Buffer.concat([complete, Buffer.alloc(1100, 0x0a)]))).toBe(false);
    expect(looksLikeCompletePdf(complete.subarray(0, 30))).toBe(false);
    expect(looksLikeCompletePdf(Buffer.alloc(0))).toBe(false);
    expect(settleDelayMs(ends(complete), 250)).toBe(0);
    expect(settleDelayMs(ends(complete.subarray(0, 30)), 250)).toBe(250);
  });

  it('a reset after the last byte counts only for a file whose format shows its end (PDF %%EOF, ZIP directory record)', () => {
    const eocd = (comment = '') =>
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x05, 0x06]), Buffer.alloc(16), Buffer.from([comment.length, 0]), Buffer.from(comment)]);
    const zip = Buffer.concat([Buffer.from('PK\x03\x04 entries ...'), eocd('made by hand')]);
    expect(looksLikeCompleteZip(zip)).toBe(true);
    expect(looksLikeCompleteZip(zip.subarray(0, zip.length - 3))).toBe(false);
    expect(looksLikeCompleteZip(Buffer.from('PK\x03\x04 cut short'))).toBe(false);
    expect(completeDespiteReset(ends(zip))).toBe(true);
    expect(settleDelayMs(ends(zip), 250)).toBe(0);
    expect(completeDespiteReset(ends(Buffer.from('%PDF-1.7\n1 0 obj\n%%EOF\n')))).toBe(true);
    expect(completeDespiteReset(ends(Buffer.from('%PDF-1.7\n1 0 obj\n')))).toBe(false);
    expect(completeDespiteReset(undefined)).toBe(false);
  });

  // real e-invoices (UBL, CII, XRechnung) from ../shared/corpora: each whole one is trusted at
  // once; cut anywhere short of its root's end tag, none is
  const xmlDir = path.resolve(ROOT, '../shared/corpora/einvoice-xml');
  const xmls = fs.readdirSync(xmlDir).filter((f) => f.endsWith('.xml'));
  it.each(xmls)('an XML e-invoice ends with its root element: %s', (name) => {
    const whole = fs.readFileSync(path.join(xmlDir, name));
    expect(looksLikeCompleteXml(ends(whole))).toBe(true);
    expect(settleDelayMs(ends(whole), 250)).toBe(0);
    // what a sender or a bench appends after the root: white space, a comment, a processing instruction
    expect(looksLikeCompleteXml(ends(Buffer.concat([whole, Buffer.from('\n<!-- feed-7 -->\n<?done yes?>\r\n')])))).toBe(true);
    const end = whole.lastIndexOf('</');
    for (const cut of [end, end + 2, whole.length - 2, Math.floor(whole.length / 2), 100]) {
      expect(looksLikeCompleteXml(ends(whole.subarray(0, cut))), `${name} cut at ${cut}`).toBe(false);
    }
    // cut right after an inner element's end tag: that element's name is not the root's
    const inner = whole.lastIndexOf('</', end - 1);
    const innerEnd = whole.indexOf('>', inner) + 1;
    expect(looksLikeCompleteXml(ends(whole.subarray(0, innerEnd)))).toBe(false);
  });

  it('finds the root past a BOM, a declaration, comments and a DOCTYPE; refuses what is not XML', () => {
    const doc = '\ufeff<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE x>\n<ns:Invoice xmlns:ns="urn:x"><a>1</a></ns:Invoice>\n';
    expect(looksLikeCompleteXml(ends(Buffer.from(doc)))).toBe(true);
    expect(looksLikeCompleteXml(ends(Buffer.from(doc.replace('</ns:Invoice>', '</ns:Invoic>'))))).toBe(false);
    expect(looksLikeCompleteXml(ends(Buffer.from('<Invoice>text</a></Invoice-not>')))).toBe(false);
    expect(looksLikeCompleteXml(ends(Buffer.from('just text </Invoice>')))).toBe(false);
    // UTF-16 is not read: such a document waits for the grace period
    expect(looksLikeCompleteXml(ends(Buffer.from(`\ufeff<Invoice></Invoice>`, 'utf16le')))).toBe(false);
  });
});

describe('passive ports', () => {
  it('hands out the ports of the range in turn, wrapping around', () => {
    const r = new PortRange(40000, 40002);
    const seen = Array.from({ length: 6 }, () => r.take());
    expect(new Set(seen)).toEqual(new Set([40000, 40001, 40002]));
    expect(seen.slice(3)).toEqual(seen.slice(0, 3));
    expect(r.size).toBe(3);
  });

  it('writes the PASV address and port as h1,h2,h3,h4,p1,p2', () => {
    expect(pasvReply('203.0.113.7', 30001)).toBe('203,0,113,7,117,49');
  });
});
