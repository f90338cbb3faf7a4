// The document store (issue 46, docs/operations.md "Document store"): which driver keeps the bytes
// of files and documents, where, and how long a store call may take.
import { Type } from '../typebox.ts';
import { flag, oneOf, setting, text, url, whole } from '../setting-types.ts';

export const store = Type.Object(
  {
    documentStore: setting(oneOf('database', 'directory', 's3'), {
      env: 'DOCUMENT_STORE',
      default: 'database',
      doc: 'Where the bytes of files and documents live: database (in PostgreSQL/PGlite, nothing to set up), directory (DOCUMENT_STORE_DIR, a volume every node mounts) or s3.',
    }),
    documentStoreFallback: setting(oneOf('database', 'directory', 's3'), {
      env: 'DOCUMENT_STORE_FALLBACK',
      example: 'database',
      doc: 'While documents move to DOCUMENT_STORE (npm run admin -- move-documents): the store they move from, read when an object is not in DOCUMENT_STORE yet. Unset after the move (docs/operations.md "Moving the documents").',
    }),
    documentStoreDir: setting(text('directory'), {
      env: 'DOCUMENT_STORE_DIR',
      example: '/srv/invoice-intake/documents',
      doc: 'DOCUMENT_STORE=directory: an existing directory (on several nodes, a volume every node mounts).',
    }),
    documentStoreTimeoutMs: setting(whole(100, 600_000), {
      env: 'DOCUMENT_STORE_TIMEOUT_MS',
      default: '30000',
      doc: "A store call (a put: the store's own time, not a slow client's) not done within this is a passing failure: HTTP 503, FTP/SFTP/SMTP 451, the job retried.",
    }),
    documentSweepGraceHours: setting(whole(1, 24 * 365), {
      env: 'DOCUMENT_SWEEP_GRACE_HOURS',
      default: '24',
      doc: 'Objects no committed row points at are removed by the periodic sweep once this old (never sooner).',
    }),
    documentSweepIntervalMs: setting(whole(1000), { env: 'DOCUMENT_SWEEP_INTERVAL_MS', default: '3600000', doc: 'How often the sweep runs.' }),
    documentSweepFullIntervalHours: setting(whole(1, 24 * 365), {
      env: 'DOCUMENT_SWEEP_FULL_INTERVAL_HOURS',
      default: '168',
      doc: "How often the sweep lists the whole store (weekly by default). Each run checks only the objects whose row's pointer went away; the full listing finds what no row ever pointed at (a put whose row never committed: a crash, a refused upload), and costs what the store holds.",
    }),
    s3Endpoint: setting(url('http', 'https'), {
      env: 'S3_ENDPOINT',
      example: 'https://s3.eu-central-1.amazonaws.com',
      doc: "DOCUMENT_STORE=s3 (credentials from the AWS SDK's chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles, roles). Unset: AWS's endpoint for S3_REGION; MinIO, R2, Garage: theirs.",
    }),
    s3Bucket: setting(text('bucket'), { env: 'S3_BUCKET', example: 'invoice-documents', doc: 'The bucket; needed with DOCUMENT_STORE=s3.' }),
    s3Prefix: setting(text('key prefix'), { env: 'S3_PREFIX', default: '', doc: 'The prefix of every object key in the bucket.' }),
    s3Region: setting(text('region'), { env: 'S3_REGION', default: 'us-east-1', doc: "The bucket's region." }),
    s3ForcePathStyle: setting(flag(), {
      env: 'S3_FORCE_PATH_STYLE',
      default: 'false',
      doc: 'Path-style addresses (endpoint/bucket/key), as MinIO and Garage want.',
    }),
  },
  { title: 'Document store' },
);
