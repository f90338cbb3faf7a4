// PDFs inside containers, end to end through Dovecot: forward as attachment (Thunderbird,
// Outlook, nested twice, base64-encoded), Outlook's TNEF, S/MIME opaque-signed, CAdES .pdf.p7m,
// uuencode and octet-stream (test/fixtures/mail, MANIFEST.md). Each message goes through the
// whole-message path and, on a second mailbox, the large-message path: the same walker finds the
// same files, and the document attached has the original bytes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailHarness, type MailAccount, type MailHarness } from './mail-harness.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/mail/${name}`, import.meta.url));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const CASES: [file: string, invoice: string][] = [
  ['thunderbird-forward-attachment.eml', 'INV-FWD-1'],
  ['outlook-forward-attachment.eml', 'INV-OL-1'],
  ['forward-nested-twice.eml', 'INV-NEST-2'],
  ['forward-base64-encoded.eml', 'INV-B64FWD-1'],
  ['outlook-tnef.eml', 'INV-TNEF-1'],
  ['smime-opaque-signed.eml', 'INV-SMIME-1'],
  ['smime-signed-labelled-enveloped.eml', 'INV-SMIME-2'],
  ['uuencode-in-body.eml', 'INV-UU-1'],
  ['x-uuencode-part.eml', 'INV-UUE-2'],
  ['octet-stream-pdf.eml', 'INV-OCT-1'],
];

let h: MailHarness;
let seq = 0;

beforeAll(async () => {
  h = await startMailHarness();
});
afterAll(() => h?.close());

/** The fixture as delivered to `to`: an MTA adds Delivered-To; the Message-ID is made unique for this run. */
function delivered(file: string, to: string): { raw: Buffer; id: string } {
  const id = `<${file.replace(/\W/g, '')}-${Date.now().toString(36)}-${seq++}@test.example>`;
  const text = fixture(file)
    .toString('latin1')
    .replace(/^Message-ID: <[^>]+>/im, `Message-ID: ${id}`);
  return { raw: Buffer.from(`Delivered-To: ${to}\r\n${text}`, 'latin1'), id };
}

async function documentSha(acct: MailAccount, documentId: string): Promise<string> {
  const res = await fetch(`${h.svc.apiUrl}/v2/documents/${documentId}/content`, { headers: { authorization: `Bearer ${acct.liveKey}` } });
  expect(res.status).toBe(200);
  return sha(new Uint8Array(await res.arrayBuffer()));
}

describe.each([
  ['whole messages', {}],
  ['the large-message path', { mailMaxMessageBytes: 1024 }],
] as const)('containers through %s', (label, settings) => {
  const box = label === 'whole messages' ? 'INBOX' : 'LargeBox';
  let acct: MailAccount;
  const sent = new Map<string, string>();

  beforeAll(async () => {
    acct = await h.account();
    for (const [, invoice] of [...CASES, ['', 'INV-P7M-1']]) await h.invoice(acct.liveKey, invoice);
    for (const [file] of [...CASES, ['outlook-tnef-no-pdf.eml'], ['cades-p7m-attachment.eml']]) {
      const { raw, id } = delivered(file, acct.live);
      sent.set(file, id);
      await h.dovecot.appendRaw(raw, box);
    }
    h.startPoller({ imapUrl: h.dovecot.url(box), ...settings, mailProcessedMailbox: `${box}Done`, mailFailedMailbox: `${box}Failed` });
  });

  it.each(CASES)('%s: attaches %s.pdf with the original bytes', async (file, invoice) => {
    const { row, records } = await h.settledRecords(sent.get(file)!);
    expect(row.outcome).toBe('processed');
    expect(records).toHaveLength(1);
    const original = sha(fixture(`pdfs/${invoice}.pdf`));
    expect(records[0]).toMatchObject({ filename: `${invoice}.pdf`, status: 'attached', sha256: original });
    expect(await documentSha(acct, records[0].documentId!)).toBe(original);
  });

  it('cades-p7m-attachment.eml: intake unwraps the .pdf.p7m, attaches the PDF inside and says the signature was verified', async () => {
    const { records } = await h.settledRecords(sent.get('cades-p7m-attachment.eml')!);
    expect(records).toEqual([
      expect.objectContaining({ filename: 'INV-P7M-1.pdf.p7m', status: 'attached', reason: expect.stringMatching(/its signature was verified/) }),
    ]);
    expect(await documentSha(acct, records[0].documentId!)).toBe(sha(fixture('pdfs/INV-P7M-1.pdf')));
  });

  it('names the container that held no PDF instead of "No PDF attached"', async () => {
    const { row, records } = await h.settledRecords(sent.get('outlook-tnef-no-pdf.eml')!);
    expect(row.outcome).toBe('failed');
    expect(row.reason).toBe('winmail.dat held no PDF');
    expect(records).toEqual([expect.objectContaining({ status: 'failed', reason: 'winmail.dat held no PDF' })]);
  });

  it('notes where each file came from and whether its signature was verified', async () => {
    const origins = async (file: string) => {
      const { row } = await h.settledRecords(sent.get(file)!);
      return (await h.db.query<{ origin: string | null }>('select origin from mail_message_files where message_id = $1', [row.id])).map((f) => f.origin);
    };
    expect(await origins('smime-opaque-signed.eml')).toEqual(['smime.p7m (signature verified)']);
    expect(await origins('cades-p7m-attachment.eml')).toEqual(['signature verified']);
    expect(await origins('forward-nested-twice.eml')).toEqual(['Fwd Invoice.eml › Invoice.eml']);
    expect(await origins('octet-stream-pdf.eml')).toEqual([null]);
  });

  it('logs where each file came from and whether its signature was verified', () => {
    const line = h.logs.find((l) => l.includes('mail message received as imports') && l.includes('INV-SMIME-1.pdf') && l.includes(acct.id));
    expect(JSON.parse(line!).files).toEqual([{ name: 'INV-SMIME-1.pdf', in: ['smime.p7m'], signature: 'verified' }]);
    const tnef = h.logs.find((l) => l.includes('mail message received as imports') && l.includes('INV-TNEF-1.pdf') && l.includes(acct.id));
    expect(JSON.parse(tnef!).files).toEqual([{ name: 'INV-TNEF-1.pdf', in: ['winmail.dat'] }]);
  });
});

describe('the fixtures', () => {
  it("the TNEF fixture reads the same in Debian's tnef: the long name and the bytes", () => {
    const listed = execFileSync('tnef', ['-t', '--save-body=no', '-f', new URL('../fixtures/mail/winmail-invoice.dat', import.meta.url).pathname]).toString();
    expect(listed).toContain('INV-TNEF-1.pdf');
  });

  it('the S/MIME fixture verifies in OpenSSL', () => {
    const out = execFileSync(
      'openssl',
      ['smime', '-verify', '-noverify', '-in', new URL('../fixtures/mail/smime-opaque-signed.eml', import.meta.url).pathname],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(out.toString('latin1')).toContain('INV-SMIME-1.pdf');
  });
});
