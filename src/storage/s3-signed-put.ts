// The whole-object PutObject (files under a part, every file the intake sees) sent past the SDK's
// command stack, on its own public building blocks: an HttpRequest signed by SignatureV4 with the
// client's credentials provider and clock offset, sent by the client's own request handler (the
// same sockets, time-outs and abort signal as every other call, s3-calls.ts).
//
// Why: the SDK's per-call path (serialisation, endpoint rules, retry, signer set-up) costs more
// client CPU than the request itself: a 100 KB put 1.0 ms through PutObjectCommand, 0.4-0.5 ms
// this way (bench/s3-put-cpu.ts; bench/RESULTS.md, 2026-12-03 (second session)).
// What that path decides once per client is decided once here too: the endpoint by the client's
// own rules (endpointProvider: path-style or virtual-hosted, AWS's regional endpoint when none is
// configured), the signing name and region from its auth scheme. Only the plain SigV4 scheme is
// taken; any other (S3 Express, multi-region access points) keeps the command (`undefined`).
// Retries follow the SDK's standard ones (3 attempts, full-jitter backoff, on transient failures),
// and so does its clock-skew correction (the offset from an answer's Date, then signed again).
import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';

interface Target {
  protocol: string;
  hostname: string;
  port?: number;
  /** the bucket's path on that host, '' or '/bucket' (no trailing slash) */
  path: string;
  host: string;
  signer: SignatureV4;
  /** the signer's own, given with each request so that it need not ask its providers for them again */
  signingRegion: string;
  signingService: string;
}

/** An S3 failure as the SDK's errors carry it (withDeadline reads `name` and `$metadata`). */
class S3Refusal extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(
    code: string,
    status: number,
    /** refused for a clock the answer corrected: signing again may pass */
    readonly clockCorrected = false,
  ) {
    super(`${code} (HTTP ${status})`);
    this.name = code;
    this.$metadata = { httpStatusCode: status };
  }
}

const MAX_ATTEMPTS = 3;
// the SDK's: transient network failures, throttling codes, 5xx of the gateway kind
const TRANSIENT_NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
const THROTTLING = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestThrottled', 'TooManyRequestsException', 'RequestLimitExceeded']);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);

/** What S3 leaves as it is in a path: RFC 3986's unreserved characters and '/'. */
const UNRESERVED = /^[A-Za-z0-9\-._~/]*$/;

/** S3 encodes a key per segment, '/' kept, RFC 3986's reserved characters too (the SDK's extendedEncodeURIComponent). */
function encodeKey(key: string): string {
  if (UNRESERVED.test(key)) return key; // every content key under a plain prefix: nothing to encode
  return key
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

export class SignedPut {
  private target?: Promise<Target | undefined>;
  /** the target once resolved: every put after the first goes on without awaiting it */
  private resolved?: Target;
  /** server time minus ours, as the SDK's systemClockOffset: corrected from an answer's Date when it is off by 5 minutes */
  private clockOffset: number;
  /** the last answer's Date header, found within 5 minutes of our clock, and until when that holds without parsing it again */
  private lastDate?: string;
  private lastDateCheckedUntil = 0;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {
    this.clockOffset = client.config.systemClockOffset ?? 0;
  }

  /** Where puts go, or undefined when the bucket's endpoint wants another auth scheme than SigV4. */
  private resolve(): Promise<Target | undefined> {
    this.target ??= (async () => {
      const c = this.client.config;
      const custom = c.isCustomEndpoint && c.endpoint ? await c.endpoint() : undefined;
      const endpoint = c.endpointProvider({
        Bucket: this.bucket,
        Region: await c.region(),
        UseFIPS: await c.useFipsEndpoint(),
        UseDualStack: await c.useDualstackEndpoint(),
        ForcePathStyle: c.forcePathStyle,
        Accelerate: c.useAccelerateEndpoint,
        UseGlobalEndpoint: typeof c.useGlobalEndpoint === 'function' ? await c.useGlobalEndpoint() : c.useGlobalEndpoint,
        Endpoint: custom ? `${custom.protocol}//${custom.hostname}${custom.port ? `:${custom.port}` : ''}${custom.path}` : undefined,
      });
      const scheme = (endpoint.properties?.authSchemes as { name?: string; signingName?: string; signingRegion?: string }[] | undefined)?.[0];
      if (scheme?.name !== 'sigv4' || !scheme.signingRegion) return undefined;
      const url = endpoint.url;
      const port = url.port ? Number(url.port) : undefined;
      const signer = new SignatureV4({
        credentials: c.credentials,
        region: scheme.signingRegion,
        service: scheme.signingName ?? 's3',
        sha256: c.sha256,
        uriEscapePath: false, // S3 signs the path as sent (disableDoubleEncoding)
        applyChecksum: false,
      });
      return {
        protocol: url.protocol,
        hostname: url.hostname,
        port,
        path: url.pathname.replace(/\/+$/, ''),
        host: url.host,
        signer,
        signingRegion: scheme.signingRegion,
        signingService: scheme.signingName ?? 's3',
      };
    })();
    return this.target;
  }

  /**
   * PUTs `body` under `key` with its known SHA-256 (hex) signed as x-amz-content-sha256, so S3 refuses
   * a body that does not match it. Returns false, having sent nothing, when the command must do it.
   * Call it inside withDeadline, with its call's signal: it ends the request as it ends every other call's.
   */
  async put(key: string, body: Buffer, sha256: string, signal?: AbortSignal): Promise<boolean> {
    const t = this.resolved ?? (await this.resolve());
    if (!t) return false;
    this.resolved = t;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(t, key, body, sha256, signal);
        return true;
      } catch (e) {
        if (attempt >= MAX_ATTEMPTS || !transient(e)) throw e;
        // full jitter on 100 ms doubling, as the SDK's standard strategy; the call's deadline still ends it
        await sleep(Math.random() * 100 * 2 ** (attempt - 1));
      }
    }
  }

  private async send(t: Target, key: string, body: Buffer, sha256: string, signal: AbortSignal | undefined): Promise<void> {
    const request = new HttpRequest({
      method: 'PUT',
      protocol: t.protocol,
      hostname: t.hostname,
      port: t.port,
      path: `${t.path}/${encodeKey(key)}`,
      headers: {
        host: t.host,
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
        'x-amz-content-sha256': sha256,
      },
      body,
    });
    const signed = await t.signer.sign(request, {
      signingDate: new Date(Date.now() + this.clockOffset),
      signingRegion: t.signingRegion,
      signingService: t.signingService,
    });
    const { response } = await this.client.config.requestHandler.handle(signed as HttpRequest, { abortSignal: signal });
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    // a 2xx whose (empty) body has arrived: resumed so the socket goes back to the pool, not read
    // through an async iterator (its stream listeners and promises cost more than the rest of the answer)
    const text = ok && drained(response.body) ? '' : await readAll(response.body as AsyncIterable<Uint8Array> | undefined, ok ? 0 : 64 * 1024);
    const corrected = this.correctClock(response.headers.date ?? response.headers.Date);
    if (ok) return;
    throw new S3Refusal(/<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1] ?? `HTTP${status}`, status, corrected);
  }

  /** As the SDK does: a server clock 5 minutes or more from ours (offset included) becomes the offset; true when it changed. */
  private correctClock(date: string | undefined): boolean {
    // S3's Date has a resolution of a second: the answers of one second are checked once
    if (date !== undefined && date === this.lastDate && Date.now() < this.lastDateCheckedUntil) return false;
    const server = date ? Date.parse(date) : Number.NaN;
    if (!Number.isNaN(server)) [this.lastDate, this.lastDateCheckedUntil] = [date, Date.now() + 1000];
    if (Number.isNaN(server) || Math.abs(server - (Date.now() + this.clockOffset)) < 300_000) return false;
    this.clockOffset = server - Date.now();
    return true;
  }
}

/**
 * True when `body` (Node's IncomingMessage, as NodeHttpHandler hands it) was received whole: it is
 * resumed, so it ends and its socket goes back to the agent's pool, and nothing of it is read.
 */
function drained(body: unknown): boolean {
  const b = body as { complete?: boolean; resume?: () => unknown } | undefined;
  if (b?.complete !== true || typeof b.resume !== 'function') return false;
  b.resume();
  return true;
}

/** Reads the answer to its end (the socket goes back to the pool), keeping at most `keep` bytes as text. */
async function readAll(body: AsyncIterable<Uint8Array> | undefined, keep: number): Promise<string> {
  if (!body) return '';
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < keep) kept.push(Buffer.from(chunk));
    size += chunk.length;
  }
  return Buffer.concat(kept).toString('utf8', 0, keep);
}

function transient(e: unknown): boolean {
  if (e instanceof S3Refusal)
    return e.clockCorrected || TRANSIENT_STATUS.has(e.$metadata.httpStatusCode) || THROTTLING.has(e.name) || e.$metadata.httpStatusCode === 429;
  const code = (e as { code?: string })?.code;
  return code !== undefined && TRANSIENT_NETWORK.has(code);
}
