// One POST of a signed payload to an endpoint: no redirects followed (a 3xx is a failure), the
// whole exchange within the timeout, the connection only to an address the URL policy allows
// (checked on the address actually used: services/webhook-url.ts), and the first 1 KB of the
// answer kept for the delivery log.
import http from 'node:http';
import https from 'node:https';
import { safeLookup, urlProblem, type UrlPolicy } from '../services/webhook-url.ts';
import type { Mode } from '../domain/scope.ts';

const RESPONSE_KEEP_BYTES = 1024;

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
  success: boolean;
}

// keep-alive: a busy endpoint gets its events over a few warm connections, not one TLS handshake each
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

export function postWebhook(url: string, mode: Mode, headers: Record<string, string>, body: string, policy: UrlPolicy, timeoutMs: number): Promise<PostResult> {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'durationMs' | 'success'>): PostResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
    success: r.error === null && r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300,
  });
  // the rules of the URL's mode, again at delivery: the policy or the record may have changed
  const problem = urlProblem(url, mode, policy);
  if (problem) return Promise.resolve(done({ statusCode: null, response: null, error: problem }));
  const target = new URL(url);
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = lib.request(target, {
      method: 'POST',
      agent: target.protocol === 'https:' ? agents.https : agents.http,
      lookup: safeLookup(policy),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'invoice-intake-webhooks/1' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    req.on('response', (res) => {
      const kept: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_KEEP_BYTES) kept.push(chunk.subarray(0, RESPONSE_KEEP_BYTES - size));
        size += chunk.length;
      });
      res.on('end', () => resolve(done({ statusCode: res.statusCode ?? null, response: Buffer.concat(kept).toString('utf8'), error: null })));
      res.on('error', (err) => resolve(done({ statusCode: res.statusCode ?? null, response: Buffer.concat(kept).toString('utf8'), error: err.message })));
    });
    req.on('error', (err: Error & { code?: string }) => {
      const error = err.name === 'AbortError' || err.name === 'TimeoutError' ? `No answer within ${timeoutMs} ms` : err.message;
      resolve(done({ statusCode: null, response: null, error }));
    });
    req.end(body);
  });
}
