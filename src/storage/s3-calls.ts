// How the S3 driver talks to the SDK: one client set up for S3-compatible stores, every call under
// a time-out, and the SDK's failures turned into the store's three errors, so callers (intake,
// the channels) never see an SDK type.
import { S3Client } from '@aws-sdk/client-s3';
import { DomainError } from '../domain/errors.ts';
import { StoreMissingError, StoreUnavailableError } from './document-store.ts';

export interface S3Settings {
  /** empty: AWS's own endpoint for the region */
  endpoint?: string;
  bucket: string;
  /** prepended to every key; '' or ending in '/' (added when missing) */
  prefix: string;
  region: string;
  /** path-style addressing (http://host/bucket/key): MinIO, Ceph RGW, Garage, s3rver want it */
  forcePathStyle: boolean;
  /** the most one call may take, retries included */
  timeoutMs: number;
}

export function s3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.region,
    endpoint: s.endpoint || undefined,
    forcePathStyle: s.forcePathStyle,
    // credentials: none given, so the SDK's default chain (environment, profile, web identity,
    // container and instance roles) decides, as operators expect of an AWS client.
    // The SDK's default CRC32 checksums on every upload are AWS-only wire features (aws-chunked
    // trailers) that several S3-compatible stores refuse; we verify content by SHA-256 ourselves.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: Math.min(s.timeoutMs, 5000),
      // a socket that says nothing this long is dead (a stalled body mid-download included)
      socketTimeout: s.timeoutMs,
      httpAgent: { keepAlive: true, maxSockets: 64 },
      httpsAgent: { keepAlive: true, maxSockets: 64 },
    },
  });
}

/** The SDK's error metadata, read without depending on its classes. */
function statusOf(e: unknown): { name: string; status?: number } {
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return { name: err?.Code ?? err?.name ?? 'Error', status: err?.$metadata?.httpStatusCode };
}

export function isMissing(e: unknown): boolean {
  const { name, status } = statusOf(e);
  return status === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/**
 * Runs one SDK call with a deadline: `timeoutMs` from now, or the caller's signal, whichever comes
 * first. The timer stays armed until `work` resolves, so a body read inside `work` is covered too.
 * A refusal by the caller's own signal is rethrown as it is (the caller gave up, nothing failed).
 */
export async function withDeadline<T>(
  what: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (abortSignal: AbortSignal) => Promise<T>,
  missing?: string,
): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const abortSignal = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  try {
    return await work(abortSignal);
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if (missing !== undefined && isMissing(e)) throw new StoreMissingError(missing);
    if (e instanceof DomainError) throw e; // the store's own errors, a refused key
    const { name, status } = statusOf(e);
    // the S3 error's code and status only: its message can name the bucket, and this text reaches clients
    const why = deadline.signal.aborted ? `timed out after ${timeoutMs} ms` : `${name}${status ? ` (HTTP ${status})` : ''}`;
    throw new StoreUnavailableError(`S3 ${what}: ${why}`, e);
  } finally {
    clearTimeout(timer);
  }
}
