// The statements that stage received files: the bytes (intake_staging), the record
// (intake_records) and its first history line (intake_history) in one statement, for one file or
// for a group committed together (staging-group.ts); with the database store, the bytes' objects
// too (document_objects, by the store's ObjectsInStatement). IntakeRepository.insert/insertMany call these.
import type { Queryable } from '../db/database.ts';
import type { ImportRecord } from '../domain/intake.ts';
import { reasonColumns } from '../domain/intake-reasons.ts';
import type { Scope } from '../domain/scope.ts';
import type { NewImport } from './intake-repository.ts';
import type { ObjectsInStatement } from '../storage/document-store.ts';

interface StagedTimes {
  updated_at: Date | string;
  received_at: Date | string;
}

/**
 * The CTE writing the objects of the files whose bytes are pending (NewImport.contentPending), with
 * its trailing comma; '' when there are none. Its parameters go after the rows' own.
 */
function pendingObjects(params: unknown[], files: NewImport[], objects: ObjectsInStatement | undefined): string {
  const pending = files.flatMap((f) => (f.contentPending && f.content && f.contentSha256 ? [{ sha256: f.contentSha256, bytes: f.content }] : []));
  if (!pending.length) return '';
  if (!objects) throw new Error('A file whose bytes are pending, but no store to write them in the statement');
  return `o as (${objects.sql(params, pending)}), `;
}

/**
 * `history`: intake-repository.ts's HISTORY, the line of each record in the CTE `r`. `objects`:
 * the store's writer of the objects whose bytes are pending (the database driver's).
 */
export async function insertStaged(q: Queryable, scope: Scope, f: NewImport, history: string, objects?: ObjectsInStatement): Promise<ImportRecord> {
  const params = stagedParams(scope, f);
  const o = pendingObjects(params, [f], objects);
  const rows = await q.query<StagedTimes>(
    `with ${o}s as (
       insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, content_sha256, trace_id, subject, archive_id, message_files, sender_verdict)
       values ($1, $2::text, $3::text, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $19::jsonb) returning id, received_at
     ), r as (
       insert into intake_records (id, account_id, mode, status, match_name, reason, reason_code, reason_params, upload_key_id, run_lease_until)
       select s.id, $2::text, $3::text, $14, $15, $16, $17, $18::jsonb, $20::text, now() + $21::int * interval '1 millisecond' from s
       returning id, account_id, mode, status, reason, reason_code, reason_params, updated_at
     ), h as (${history})
     select r.updated_at, s.received_at from r, s`,
    params,
    { prepare: true },
  );
  return stagedRecord(f, rows[0]);
}

/**
 * A file's parameters in the order of COLUMNS: $1 to $21 of insertStaged, and each row's of
 * insertStagedMany from its offset on. One array literal, so the one-file path (every upload)
 * allocates no more than when it wrote the list out itself.
 */
const stagedParams = (scope: Scope, f: NewImport): unknown[] => [
  f.id,
  scope.accountId,
  scope.mode,
  f.channel,
  f.sender,
  f.filename,
  f.size,
  f.sha256,
  f.contentSha256 ?? null,
  f.traceId,
  f.subject,
  f.archiveId ?? null,
  f.messageFiles ?? null,
  f.status,
  f.matchName,
  f.reason?.text ?? null,
  ...reasonColumns(f.reason),
  verdictColumn(f),
  f.uploadKeyId ?? null,
  f.runLeaseMs ?? null,
];

/** The columns of a group's rows and their types: a VALUES list infers none, so each parameter is cast. */
const COLUMNS = [
  'id',
  'account_id',
  'mode',
  'channel',
  'sender',
  'filename',
  'size',
  'sha256',
  'content_sha256',
  'trace_id',
  'subject',
  'archive_id',
  'message_files',
  'status',
  'match_name',
  'reason',
  'reason_code',
  'reason_params',
  'sender_verdict',
  'upload_key_id',
  'run_lease_ms',
];
const TYPES = [
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'int',
  'text',
  'text',
  'text',
  'text',
  'text',
  'int',
  'text',
  'text',
  'text',
  'text',
  'jsonb',
  'jsonb',
  'text',
  'int',
];

/**
 * A group of files (of any scopes) in one statement: a multi-row VALUES, not unnest() of arrays, so
 * each file's bytes travel as a binary parameter of their own instead of hex text inside an array.
 * Prepared: one statement text per group size, so at most the batch cap of them per connection.
 */
export async function insertStagedMany(
  q: Queryable,
  files: { scope: Scope; f: NewImport }[],
  history: string,
  objects?: ObjectsInStatement,
): Promise<ImportRecord[]> {
  const params: unknown[] = [];
  const values = files.map(({ scope, f }) => {
    const at = params.length;
    params.push(...stagedParams(scope, f));
    return `(${TYPES.map((t, i) => `$${at + i + 1}::${t}`).join(', ')})`;
  });
  const o = pendingObjects(
    params,
    files.map((x) => x.f),
    objects,
  );
  const rows = await q.query<StagedTimes & { id: string }>(
    `with ${o}v (${COLUMNS.join(', ')}) as (values ${values.join(', ')}
     ), s as (
       insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, content_sha256, trace_id, subject, archive_id, message_files, sender_verdict)
       select id, account_id, mode, channel, sender, filename, size, sha256, content_sha256, trace_id, subject, archive_id, message_files, sender_verdict from v returning id, received_at
     ), r as (
       insert into intake_records (id, account_id, mode, status, match_name, reason, reason_code, reason_params, upload_key_id, run_lease_until)
       select v.id, v.account_id, v.mode, v.status, v.match_name, v.reason, v.reason_code, v.reason_params, v.upload_key_id,
              now() + v.run_lease_ms * interval '1 millisecond' from v join s on s.id = v.id
       returning id, account_id, mode, status, reason, reason_code, reason_params, updated_at
     ), h as (${history})
     select r.id, r.updated_at, s.received_at from r join s on s.id = r.id`,
    params,
    { prepare: true },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return files.map(({ f }) => {
    const r = byId.get(f.id);
    if (!r) throw new Error(`Staging ${f.id} returned no row`);
    return stagedRecord(f, r);
  });
}

const verdictColumn = (f: NewImport) => (f.senderVerdict ? JSON.stringify(f.senderVerdict) : null);

/** The record of a file just staged: what was inserted, and the times the database set. */
function stagedRecord(f: NewImport, r: StagedTimes): ImportRecord {
  return {
    id: f.id,
    channel: f.channel,
    sender: f.sender,
    filename: f.filename,
    size: f.size,
    sha256: f.sha256,
    status: f.status,
    invoiceId: null,
    documentId: null,
    reason: f.reason?.text ?? null,
    reasonCode: f.reason?.code ?? null,
    reasonParams: f.reason?.code ? (f.reason.params ?? {}) : null,
    archiveId: f.archiveId ?? null,
    receivedAt: new Date(r.received_at),
    updatedAt: new Date(r.updated_at),
    attachedAt: null,
    matchedBy: null,
    senderVerdict: f.senderVerdict ?? null,
    uploadKeyId: f.uploadKeyId ?? null,
  };
}
