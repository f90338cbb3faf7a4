// The multi-process test's HTTP and FTP clients: each resends what was not acknowledged, as a
// real client does while a process of the service restarts.
import { Readable } from 'node:stream';
import { Client as FtpClient } from 'basic-ftp';
import { sleep } from '../../testkit/wait.ts';
import { Gate, type File } from './multi-process-checks.ts';

type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

export const ungated = new Gate();

/**
 * Uploads each HTTP file until it is acknowledged (202), as a client that resends whatever was not
 * acknowledged: a refused connection or a 503 while the API restarts is tried again.
 */
export async function sendHttp(api: Api, files: File[], gate = ungated, width = 6): Promise<{ retries: number }> {
  const take = gate.feed(files);
  let retries = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let f; (f = await take()); ) {
        for (;;) {
          try {
            const res = await api('POST', '/v2/imports', { Filename: `${f.number}.pdf`, Content: f.bytes.toString('base64') });
            if (res.status === 202) break;
            if (res.status !== 503) throw new Error(`upload of ${f.number}: ${res.status} ${JSON.stringify(res.body)}`);
          } catch (e) {
            if (!/fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(String((e as Error).message) + String((e as { cause?: unknown }).cause))) throw e;
          }
          retries++;
          await sleep(100); // a client's pause before it sends again, not a wait for the service
        }
      }
    }),
  );
  return { retries };
}

/**
 * Uploads each FTP file over a few connections until the server confirms it (226: staged and
 * queued), as an FTP client would: after a refused or cut connection it reconnects and sends the
 * file again.
 */
export async function sendFtp(login: { port: number; user: string; password: string }, files: File[], gate = ungated, width = 4): Promise<{ retries: number }> {
  const take = gate.feed(files);
  let retries = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      let client: FtpClient | undefined;
      try {
        for (let f; (f = await take()); ) {
          for (;;) {
            try {
              if (!client || client.closed) {
                client = new FtpClient(60_000); // generous: a loaded machine must not look like a cut connection
                await client.access({ host: '127.0.0.1', ...login, secure: false });
              }
              const res = await client.uploadFrom(Readable.from([f.bytes]), `${f.number}.pdf`);
              if (res.code === 226) break;
              throw new Error(`upload of ${f.number}: ${res.code} ${res.message}`);
            } catch (e) {
              // refused while the FTP process restarts, or cut by its stop: not acknowledged, so send again
              if (/^upload of/.test((e as Error).message)) throw e;
              client?.close();
              client = undefined;
              retries++;
              await sleep(100); // a client's pause before it sends again, not a wait for the service
            }
          }
        }
      } finally {
        client?.close();
      }
    }),
  );
  return { retries };
}
