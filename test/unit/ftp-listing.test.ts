// What LIST shows: recent FTP uploads with their status, error texts, temporary uploads.
import { describe, expect, it } from 'vitest';
import { buildListing, findEntry, lsDate, lsLine } from '../../src/channels/transfer/directory-listing.ts';
import type { ImportRecord } from '../../src/domain/intake.ts';

const at = new Date('2026-03-02T10:15:00Z');
const rec = (o: Partial<ImportRecord>): ImportRecord => ({
  id: 'imp_1',
  channel: 'ftp',
  sender: 'u@1.2.3.4',
  filename: 'F-1.pdf',
  size: 100,
  sha256: 'x',
  status: 'attached',
  invoiceId: null,
  documentId: null,
  reason: null,
  receivedAt: at,
  updatedAt: at,
  attachedAt: null,
  matchedBy: null,
  ...o,
});

describe('directory listing', () => {
  it('one entry per name (the newest), an error text after each failed or waiting file, FTP uploads only, then temporary uploads', () => {
    const entries = buildListing(
      [
        rec({ id: 'imp_3', filename: 'F-1.pdf', status: 'failed', reason: 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' }),
        rec({
          id: 'imp_2',
          filename: 'F-2.pdf',
          status: 'waiting',
          size: 7,
          reason: 'Waiting for an invoice with id or number F-2 until 2026-03-03T10:15:00.000Z',
        }),
        rec({ id: 'imp_1', filename: 'f-1.PDF', status: 'attached' }),
        rec({ id: 'imp_0', filename: 'mail.pdf', channel: 'mail' }),
        rec({ id: 'imp_9', filename: 'evil\r\n226 fake.pdf' }),
      ],
      [{ name: 'F-3.pdf.filepart', size: 5, at }],
    );
    expect(entries.map((e) => [e.name, e.status])).toEqual([
      ['F-1.pdf', 'failed'],
      ['F-1.pdf.error.txt', 'failed'],
      ['F-2.pdf', 'waiting'],
      ['F-2.pdf.error.txt', 'waiting'],
      ['F-3.pdf.filepart', 'uploading'],
    ]);
    // a file that matches nothing yet says so at once, with the end of its wait
    expect(entries[3].content!.toString()).toBe(
      'File: F-2.pdf\r\nStatus: waiting\r\nReason: Waiting for an invoice with id or number F-2 until 2026-03-03T10:15:00.000Z\r\n' +
        'Received: 2026-03-02T10:15:00.000Z\r\nIntake id: imp_2\r\n' +
        'It is attached as soon as that invoice exists. If the name is wrong, upload the file again named <invoice_number>.pdf or <invoice_id>.pdf.\r\n',
    );
    const err = entries[1];
    expect(err.content!.toString()).toBe(
      'File: F-1.pdf\r\nStatus: failed\r\nReason: The file is not a PDF (no %PDF- header); send the invoice as a PDF file\r\nReceived: 2026-03-02T10:15:00.000Z\r\n' +
        'Intake id: imp_3\r\nUpload a corrected file under the same name to try again.\r\n',
    );
    expect(err.size).toBe(err.content!.length);
    expect(err.content!.toString()).toContain('Reason: The file is not a PDF (no %PDF- header); send the invoice as a PDF file');
    expect(entries[0].content).toBeUndefined();
  });

  it('finds names exactly first, then ignoring case', () => {
    const entries = buildListing([rec({ filename: 'A.pdf' }), rec({ id: 'imp_2', filename: 'a.PDF.x' })]);
    expect(findEntry(entries, 'A.pdf')?.name).toBe('A.pdf');
    expect(findEntry(entries, 'a.pdf')?.name).toBe('A.pdf');
    expect(findEntry(entries, 'b.pdf')).toBeUndefined();
  });

  it('writes ls -l lines with the status as owner and the mode as group', () => {
    const now = new Date('2026-03-10T00:00:00Z');
    expect(lsLine({ name: 'F-1.pdf', size: 1234, mtime: at, status: 'attached' }, 'live', now)).toBe(
      '-r--r--r-- 1 attached  live        1234 Mar  2 10:15 F-1.pdf',
    );
    expect(lsLine({ name: 'F-1.pdf.filepart', size: 5, mtime: at, status: 'uploading' }, 'test', now)).toMatch(/^-rw-r--r-- 1 uploading test /);
    expect(lsLine({ name: '.', size: 0, mtime: at, isDirectory: () => true }, 'live', now)).toMatch(/^dr-xr-xr-x 1 ftp /);
    expect(lsDate(new Date('2025-01-05T00:00:00Z'), now)).toBe('Jan  5  2025');
  });
});
