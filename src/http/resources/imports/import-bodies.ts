// POST /v2/imports takes two bodies (issue 46). JSON (or form fields) {filename, content: Base64},
// as always; or the file itself, Content-Type application/pdf, application/zip (or
// application/x-zip-compressed, application/octet-stream) with its name in X-Filename, handed to
// the intake as the stream it is (IntakeReceiver.takeUpload): on a store other than the database a
// ZIP archive streams into the store and is never held whole, and the cap (ZIP_MAX_TOTAL_BYTES for
// a .zip name, the 5 MB document limit for any other) refuses it while it streams: 413, nothing
// kept. Fastify's bodyLimit reads only bodies it buffers, so the JSON and form parsers keep their
// 6 MB here, and a route bodyLimit would have raised theirs: the raw form's limit is that cap.
import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isArchiveName } from '../../../domain/archive.ts';
import { MAX_DOCUMENT_BYTES } from '../../../domain/document-facts.ts';
import type { TakenUpload } from '../../../intake/intake-port.ts';
import { StoreLimitError } from '../../../storage/document-store.ts';
import { ApiError } from '../../api-error.ts';
import { fileNameFromHeader } from '../../file-name-header.ts';
import type { HttpDeps } from '../../http-deps.ts';
import { fieldNameMap, normaliseFields } from '../../plugins/field-names.ts';
import { CreateBody, RAW_TYPES } from './schema.ts';

/** How much of a refused body is still read and dropped, so that the client reads the answer rather than a reset; past it the connection is cut. */
const DRAIN_BYTES = 64 * 1024 * 1024;
const MB = 1024 * 1024;

/** The raw bodies' streams, not read yet: the parser keeps them here (req.body is '' for the schema). */
const streams = new WeakMap<FastifyRequest, Readable>();
/** The raw bodies once taken (takeRawBody), for the handler. */
const taken = new WeakMap<FastifyRequest, { filename: string; upload: TakenUpload }>();

/** On the route's own plugin: the raw types as passthrough streams; any other type is a 415 that names both forms. */
export function registerImportBodies(app: FastifyInstance): void {
  app.addContentTypeParser(RAW_TYPES, (req, payload, done) => {
    streams.set(req, payload as Readable);
    done(null, '');
  });
  app.addContentTypeParser('*', (_req, _payload, done) =>
    done(
      new ApiError(
        415,
        `Send the file itself as ${RAW_TYPES.join(', ')} with its name in X-Filename, or JSON (or form fields) with filename and content (Base64)`,
      ),
    ),
  );
}

/** The JSON form's field names as the rest of the API takes them (Filename, filename). */
const names = fieldNameMap(Object.keys(CreateBody.properties));
/** The types whose schema Fastify applies itself (CreateBodies); other +json types are checked here. */
const VALIDATED = new Set(['application/json', 'application/x-www-form-urlencoded']);

/**
 * preValidation: the JSON form as on every route (plugins/field-names.ts, which skips a route with
 * a schema per content type), and checked against its schema whatever its JSON type.
 */
export function jsonForm(req: FastifyRequest): void {
  if (streams.has(req)) return;
  req.body = normaliseFields(req.body, names);
  if (VALIDATED.has(req.mediaType ?? '')) return;
  const validate = req.compileValidationSchema(CreateBody, 'body');
  if (!validate(req.body)) throw Object.assign(new Error('body'), { validation: validate.errors, validationContext: 'body' });
}

const tooLarge = (name: string, cap: number) =>
  new ApiError(
    413,
    `${name} is larger than ${cap} bytes (${Math.round(cap / MB)} MB), the most ${isArchiveName(name) ? 'a ZIP archive (ZIP_MAX_TOTAL_BYTES)' : 'a file other than a ZIP archive'} may be: refused, nothing was kept`,
  );

/** A refusal before the body's end: the rest is read and dropped (up to DRAIN_BYTES) so the answer reaches the client. */
function refused(req: FastifyRequest, body: Readable, e: Error): Error {
  if (req.raw.complete) return e;
  let dropped = 0;
  body.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_BYTES) req.raw.destroy();
  });
  body.resume();
  return e;
}

/** The client went away before its file was received: nothing is staged (what a store holds of it is the sweep's). */
function cutShort(req: FastifyRequest, filename: string): ApiError {
  req.log.info({ filename }, 'raw import cut short by its client: nothing received');
  return ApiError.badRequest('The body ended before it was complete: nothing was received');
}

/**
 * preHandler, before the Idempotency-Key's claim (plugins/api-auth.ts): reads a raw body into the
 * intake, so the claim's transaction is not held open while a large file arrives and its
 * fingerprint is of the name and the bytes (their SHA-256), not of a stream.
 */
export function takeRawBody(c: HttpDeps) {
  return async (req: FastifyRequest): Promise<void> => {
    const body = streams.get(req);
    if (!body) return;
    const filename = fileNameFromHeader(req.headers['x-filename']);
    if (filename instanceof ApiError) throw refused(req, body, filename);
    const cap = isArchiveName(filename) ? c.config.zipMaxTotalBytes : MAX_DOCUMENT_BYTES;
    if (Number(req.headers['content-length']) > cap) throw refused(req, body, tooLarge(filename, cap));
    let upload: TakenUpload;
    try {
      // not destroyed when the intake stops reading (over the cap): the rest is drained
      upload = await c.intake.takeUpload(filename, body.iterator({ destroyOnReturn: false }), cap);
    } catch (e) {
      if (e instanceof StoreLimitError) throw refused(req, body, tooLarge(filename, cap));
      if (req.raw.socket?.destroyed === true) throw cutShort(req, filename);
      throw refused(req, body, e as Error); // the store could not take it: 503, the client retries
    }
    taken.set(req, { filename, upload });
    if (req.headers['idempotency-key'] !== undefined) {
      const sha256 = upload.kind === 'stored' ? upload.sha256 : createHash('sha256').update(upload.bytes).digest('hex');
      req.body = { filename, sha256, size: upload.kind === 'stored' ? upload.size : upload.bytes.length };
    }
  };
}

/** The raw body takeRawBody read, or undefined for the JSON form; cut short when its client is gone by now. */
export function takenUpload(req: FastifyRequest): { filename: string; upload: TakenUpload } | undefined {
  const t = taken.get(req);
  if (t && req.raw.socket?.destroyed === true) throw cutShort(req, t.filename);
  return t;
}
