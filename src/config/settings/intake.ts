// The intake pipeline (docs/intake.md): its workers, retries, matching and archive limits.
import { Type } from '../typebox.ts';
import { flag, setting, whole } from '../setting-types.ts';

export const intake = Type.Object(
  {
    intakeConcurrency: setting(whole(1, 256), { env: 'INTAKE_CONCURRENCY', default: '8', doc: 'Jobs one worker process runs at once.' }),
    intakeAttempts: setting(whole(1, 10_000), {
      env: 'INTAKE_ATTEMPTS',
      default: '200',
      doc: 'Attempts per job (waiting counts); the match window normally ends first.',
    }),
    intakeBackoffMs: setting(whole(10), { env: 'INTAKE_BACKOFF_MS', default: '30000', doc: 'The first retry delay; doubles per attempt.' }),
    intakeBackoffMaxMs: setting(whole(10), { env: 'INTAKE_BACKOFF_MAX_MS', default: '900000', doc: 'The longest retry delay (15 min).' }),
    intakeMatchWindowMs: setting(whole(0), {
      env: 'INTAKE_MATCH_WINDOW_MS',
      default: '86400000',
      doc: 'How long a file waits for its invoice (24 h), counted from its receipt.',
    }),
    intakeMatchEinvoice: setting(flag(), {
      env: 'INTAKE_MATCH_EINVOICE',
      default: 'true',
      doc: 'When the file name is no invoice id or number (docs/matching.md): match by the e-invoice XML embedded in the PDF.',
    }),
    intakeMatchSubject: setting(flag(), { env: 'INTAKE_MATCH_SUBJECT', default: 'true', doc: 'Match e-mail by a token of the subject.' }),
    intakeMatchNameToken: setting(flag(), { env: 'INTAKE_MATCH_NAME_TOKEN', default: 'true', doc: 'Match by an invoice number inside the file name.' }),
    intakeMatchPdfText: setting(flag(), {
      env: 'INTAKE_MATCH_PDF_TEXT',
      default: 'true',
      doc: "Match by an invoice number after a label in the PDF's text, confirmed by the invoice's total in it.",
    }),
    reconcileIntervalMs: setting(whole(1000), {
      env: 'RECONCILE_INTERVAL_MS',
      default: '60000',
      doc: 'How often the reconciler runs (files whose job Redis lost are queued again), once per installation.',
    }),
    intakeLockMs: setting(whole(1000), {
      env: 'INTAKE_LOCK_MS',
      default: '30000',
      doc: 'BullMQ job lock: a worker that dies holds its jobs this long before another takes them over.',
    }),
    pdfCheckThreads: setting(whole(1, 64), {
      env: 'PDF_CHECK_THREADS',
      default: '1',
      doc: 'Worker threads that parse PDFs (API and workers share them); one checks about 2,000 files of 100 KB a second, and each costs its own heap: raise it when large files are common, so that one slow file does not hold up the others.',
    }),
    pdfCheckPriority: setting(whole(0, 19), {
      env: 'PDF_CHECK_PRIORITY',
      default: '19',
      doc: "The PDF check threads' nice value (Linux sets it per thread; the main thread, which receives and answers, keeps the process's): checks and renders take the cores the receiving side leaves, so acknowledgements do not wait behind a queue of files (docs/intake.md, Acknowledgements under load); 0 runs them at the service's own priority. A check's 30 s limit counts its thread's CPU time, not the wait.",
    }),
    zipMaxEntries: setting(whole(1, 100_000), {
      env: 'ZIP_MAX_ENTRIES',
      default: '1000',
      doc: 'Entries a ZIP archive may have (docs/intake.md, ZIP archives).',
    }),
    zipMaxTotalBytes: setting(whole(1024), {
      env: 'ZIP_MAX_TOTAL_BYTES',
      default: '209715200',
      doc: "Bytes a ZIP archive's entries may unpack to together (200 MB); also the largest archive an upload may be. On the database store an archive is held in memory while it is unpacked; on a directory or S3 store an upload streams into the store and is unpacked from there, one entry at a time.",
    }),
  },
  { title: 'Intake' },
);
