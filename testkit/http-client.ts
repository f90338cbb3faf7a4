// The one HTTP client of the tests and benchmarks: a request to the service with a JSON (or form)
// body and a Bearer token, and its answer with the body parsed when it is JSON. It calls a service
// over real HTTP(S) by its base URL (accepting the self-signed certificates tests make), or a
// Fastify instance in-process through inject. Redirects are answers, not followed.
import http from 'node:http';
import https from 'node:https';
import type { FastifyInstance } from 'fastify';

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** the parsed JSON when the answer is JSON, else its text */
  body: any;
  raw: Buffer;
}

interface HttpRequestOptions {
  /** an API key or the admin token: sent as `Authorization: Bearer ...` */
  key?: string;
  /** sent as JSON (a string as it is) */
  body?: unknown;
  /** sent as application/x-www-form-urlencoded instead of `body` */
  form?: Record<string, string>;
  /** more headers; a Content-Type here wins over the one the body implies */
  headers?: Record<string, string>;
}

export type HttpRequest = (method: string, path: string, opts?: HttpRequestOptions) => Promise<HttpReply>;

type Send = (method: string, path: string, headers: Record<string, string>, payload?: string) => Promise<Omit<HttpReply, 'body'>>;

/** A client of the service at `target`: a base URL (`http://127.0.0.1:8080`) or a Fastify instance. */
export function httpClient(target: string | Pick<FastifyInstance, 'inject'>): HttpRequest {
  const send = typeof target === 'string' ? overNetwork(target) : inProcess(target);
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let payload: string | undefined;
    if (o.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(o.form).toString();
    } else if (o.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    }
    const res = await send(method, path, headers, payload);
    const text = res.raw.toString('utf8');
    return { ...res, body: text && /json/.test(String(res.headers['content-type'] ?? '')) ? JSON.parse(text) : text };
  };
}

function inProcess(app: Pick<FastifyInstance, 'inject'>): Send {
  return async (method, url, headers, payload) => {
    const res = await app.inject({ method: method as 'GET', url, headers, payload });
    return { status: res.statusCode, headers: res.headers as HttpReply['headers'], raw: res.rawPayload };
  };
}

function overNetwork(base: string): Send {
  return (method, path, headers, payload) =>
    new Promise((resolve, reject) => {
      const target = new URL(base + path);
      const client = target.protocol === 'https:' ? https : http;
      const req = client.request(target, { method, headers, rejectUnauthorized: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(payload);
    });
}
