// Sending a file to intake (POST /v2/imports) and waiting for its record (GET /v2/imports/{id}) to
// reach a state, over any harness's client.
import { expect } from 'vitest';
import { pollFor } from '../../testkit/wait.ts';

type Get = (method: string, url: string, opts: { key: string }) => Promise<{ status: number; body: any }>;

export const settled = (record: any) => record.status === 'attached' || record.status === 'failed';

/** Polls the record until `done` says so and returns it; after `ms`, returns what it last read, for the test's assertion to show. */
export async function waitForImport(request: Get, key: string, id: string, done: (record: any) => boolean = settled, ms = 30_000): Promise<any> {
  const res = await pollFor(
    () => request('GET', `/v2/imports/${id}`, { key }),
    (r) => r.status === 200 && done(r.body),
    { ms },
  );
  return res.body;
}

type Post = (method: string, url: string, opts: { key: string; body: unknown }) => Promise<{ status: number; body: any }>;

/** POST /v2/imports of one file: answered 202 with its record, which no worker has decided yet. */
export async function postImport(request: Post, key: string, filename: string, bytes: Buffer): Promise<any> {
  const res = await request('POST', '/v2/imports', { key, body: { Filename: filename, Content: bytes.toString('base64') } });
  expect(res.status).toBe(202);
  return res.body;
}
