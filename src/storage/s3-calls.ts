// How the S3 driver talks to the SDK: one client set up for S3-compatible stores, every call under
// a time-out, and the SDK's failures turned into the store's three errors, so callers (intake,
// the channels) never see an SDK type.
//
// CPU a call: the SDK builds its middleware chain again for every send() given options (0.3 ms of
// a 1 ms HeadObject against s3rver); with cacheMiddleware it builds it once a command, but only
// for sends without options. So a call's abort signal does not travel as send()'s option: the
// call marks its command (Call.own), the chain's first step finds the call by the command's input
// and carries it in the arguments it passes on, and its last step notes the signed request's
// signal for the HTTP handler below, which hands it to Node's request where the option would have
// put it (the same abort: the socket destroyed, the call not retried). A PutObject's SHA-256,
// known already, reaches the signer the same way (x-amz-content-sha256), which would otherwise
// hash the body again.
// Not an AsyncLocalStorage (as before): on Node 20 one that has run adds a property to every
// promise and async resource of the process for its life (async_hooks' init hook), a cost every
// request and job paid once the first S3 call had run.
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
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

/** What one call hands past the SDK's cached middleware chain: its abort signal, a body's known SHA-256 (hex). */
interface CallState {
  signal: AbortSignal;
  payloadSha256?: string;
}
/** The call each marked command's input belongs to (Call.own). */
const calls = new WeakMap<object, CallState>();
/** where the chain's steps carry the call in their arguments */
const CALL = Symbol('call');
/** The abort signal of each request the chain hands the HTTP handler (noted by its last step). */
const signals = new WeakMap<object, AbortSignal>();

/** A running call, as withDeadline hands it to its work. */
export interface Call {
  signal: AbortSignal;
  /** `command`, marked as this call's: client.send() of it carries the call's signal (and known SHA-256) */
  own<C extends { input: object }>(command: C): C;
}

/** Node's HTTP handler, given the running call's abort signal as send()'s options would have given it. */
class CallHandler extends NodeHttpHandler {
  override handle(...[request, options]: Parameters<NodeHttpHandler['handle']>): ReturnType<NodeHttpHandler['handle']> {
    const signal = signals.get(request);
    return super.handle(request, signal ? { ...options, abortSignal: signal } : options);
  }
}

export function s3Client(s: S3Settings): S3Client {
  const client = new S3Client({
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
    // one middleware chain a command for the client's life: every send() here passes no options
    cacheMiddleware: true,
    requestHandler: new CallHandler({
      connectionTimeout: Math.min(s.timeoutMs, 5000),
      // a socket that says nothing this long is dead (a stalled body mid-download included)
      socketTimeout: s.timeoutMs,
      httpAgent: { keepAlive: true, maxSockets: 64 },
      httpsAgent: { keepAlive: true, maxSockets: 64 },
    }),
  });
  // the chain's first step finds the call by the command's input and hands it on inside the
  // arguments, which every later step passes on spread ({ ...args, request })
  client.middlewareStack.add(
    (next) => (args) => {
      const call = calls.get(args.input);
      return next(call ? Object.assign({ ...args }, { [CALL]: call }) : args);
    },
    { step: 'initialize', name: 'callOfCommand', priority: 'high' },
  );
  const callOf = (args: object) => (args as { [CALL]?: CallState })[CALL];
  // before the signer (finalizeRequest), which uses a x-amz-content-sha256 it finds instead of hashing
  client.middlewareStack.add(
    (next) => (args) => {
      const sha256 = callOf(args)?.payloadSha256;
      const request = args.request as { headers?: Record<string, string> };
      if (sha256 && request.headers) request.headers['x-amz-content-sha256'] = sha256;
      return next(args);
    },
    { step: 'build', name: 'knownPayloadSha256' },
  );
  // after signing and retries (each attempt's request is a new one): the request the handler gets
  client.middlewareStack.add(
    (next) => (args) => {
      const call = callOf(args);
      if (call) signals.set(args.request as object, call.signal);
      return next(args);
    },
    { step: 'deserialize', name: 'callSignal', priority: 'low' },
  );
  return client;
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

export interface CallOptions {
  timeoutMs: number;
  /** the caller's: it ends the call as the deadline does */
  signal?: AbortSignal;
  /** the SHA-256 to answer StoreMissingError with when the object is not there */
  missing?: string;
  /** the hex SHA-256 of a PutObject's body, given to the signer */
  payloadSha256?: string;
}

/**
 * Runs one SDK call with a deadline: `timeoutMs` from now, or the caller's signal, whichever comes
 * first. The timer stays armed until `work` resolves, so a body read inside `work` is covered too.
 * A refusal by the caller's own signal is rethrown as it is (the caller gave up, nothing failed).
 * `work` sends without options: the call's signal reaches the HTTP handler by the commands it marks (Call.own).
 */
export async function withDeadline<T>(what: string, o: CallOptions, work: (call: Call) => Promise<T>): Promise<T> {
  const { timeoutMs, signal, missing } = o;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  // the caller's signal ends the call too: a listener, not AbortSignal.any (three weak references a call)
  const onAbort = () => deadline.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const abortSignal = deadline.signal;
  const state: CallState = { signal: abortSignal, payloadSha256: o.payloadSha256 };
  try {
    return await work({ signal: abortSignal, own: (command) => (calls.set(command.input, state), command) });
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
    signal?.removeEventListener('abort', onAbort);
  }
}
