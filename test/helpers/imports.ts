// Waiting for an intake record (GET /v2/imports/{id}) to reach a state, over any harness's client.
import { pollFor } from '../../testkit/wait.ts';

type Get = (method: string, url: string, opts: { key: string }) => Promise<{ status: number; body: any }>;

export const settled = (record: any) => record.status === 'attached' || record.status === 'failed';

/** Polls the record until `done` says so and returns it; after `ms`, returns what it last read, for the test's assertion to show. */
export async function waitForImport(request: Get, key: string, id: string, done: (record: any) => boolean = settled, ms = 30_000): Promise<any> {
  const res = await pollFor(() => request('GET', `/v2/imports/${id}`, { key }), (r) => r.status === 200 && done(r.body), { ms });
  return res.body;
}
