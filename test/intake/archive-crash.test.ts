// Processes killed in the middle of a ZIP archive. The FTP process is killed (SIGKILL) while it
// stages the archive's files: nothing of it stays, the client had no 226, and sending it again
// stages every file once. Then a worker is killed while it attaches them: after its restart each
// file is attached exactly once. Private redis-server, fresh PostgreSQL database, the FTP role and
// the workers as child processes started the way `npm start` starts them, curl as the client.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicesNumbered, makeZip } from '../helpers/zip-archives.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { freePort } from '../../testkit/ports.ts';
import { pollFor, until } from '../../testkit/wait.ts';
import { curlUpload } from '../ftp/ftp-clients.ts';
import { freePortRange } from '../ftp/ftp-harness.ts';
import { crashRig, type CrashRig } from './intake-harness.ts';

const FILES = 600;
const rig = crashRig();
let tmp: string;

beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-zip-crash-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const count = async (sql: string, params: unknown[] = []) => (await rig.svc.container.db.query<{ n: number }>(sql, params))[0].n;
type Child = ReturnType<CrashRig['spawn']>;

async function startFtp(port: number, pasv: [number, number]) {
  const child = rig.spawn(
    {
      ...rig.env(),
      FTP_PORT: String(port),
      FTP_HOST: '127.0.0.1',
      FTP_PASV_RANGE: `${pasv[0]}-${pasv[1]}`,
      FTP_ALLOW_PLAIN: 'true',
      FTP_SELF_SIGNED_CERT: 'false',
    },
    'ftp',
  );
  const connects = () =>
    new Promise<boolean>((resolve) =>
      net
        .connect(port, '127.0.0.1')
        .once('connect', function (this: net.Socket) {
          this.destroy();
          resolve(true);
        })
        .once('error', () => resolve(false)),
    );
  await until(connects, 30_000, `the FTP role to listen\n${child.output()}`);
  return child;
}

const killed = (child: Child) => {
  child.kill('SIGKILL');
  return new Promise((r) => child.once('exit', r));
};

describe('a process killed mid-archive', () => {
  it('FTP killed while staging: nothing staged, no 226; sent again: each file staged once; a worker killed while attaching: each attached once', async () => {
    const c = rig.svc.container;
    const acct = await c.accounts.create('zip-crash');
    const scope = { accountId: acct.id, mode: 'live' as const };
    // plain FTP takes only an upload key limited to networks (issue 44): this host's
    const { key: ftpKey } = await c.uploadKeys.create(scope, { actor: { kind: 'operator', id: null, label: 'test' }, address: null }, 'Export job', [
      '127.0.0.1/32',
    ]);
    const invoices = await invoicesNumbered(c, scope, 'ZC-', FILES);
    const base = await makePdf('crash', 20_000);
    const file = path.join(tmp, 'day.zip');
    fs.writeFileSync(
      file,
      await makeZip(Array.from({ length: FILES }, (_, i) => ({ name: `ZC-${i}.pdf`, bytes: Buffer.concat([base, Buffer.from(`\n% ${i}\n`)]) }))),
    );
    const [port, pasv] = [await freePort(), await freePortRange(10)];

    const ftp = await startFtp(port, pasv);
    const sending = curlUpload(port, acct.ftpUsername, ftpKey, file, 'day.zip', { tls: false });
    // the FTP process's transaction has written its first rows: the archive is being unpacked
    const inFlight = () =>
      count(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_xid is not null and query ilike '%intake_staging%' and pid <> pg_backend_pid()`,
      );
    expect(await pollFor(inFlight, (n) => n > 0, { ms: 60_000, everyMs: 5 })).toBeGreaterThan(0);
    await killed(ftp);
    const first = await sending;
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).not.toMatch(/< 226/);
    // PostgreSQL rolls the dead process's transaction back
    await until(async () => (await inFlight()) === 0, 30_000, 'the killed transaction to end');
    expect(await count('select count(*)::int as n from intake_staging where account_id = $1', [acct.id])).toBe(0);

    const again = await startFtp(port, pasv);
    const second = await curlUpload(port, acct.ftpUsername, ftpKey, file, 'day.zip', { tls: false });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(new RegExp(`< 226 day\\.zip received as imp_\\w+, status unpacked: Unpacked into ${FILES} files`));
    const perName = await c.db.query<{ filename: string; n: number }>(
      'select filename, count(*)::int as n from intake_staging where account_id = $1 and archive_id is not null group by filename',
      [acct.id],
    );
    expect(perName).toHaveLength(FILES);
    expect(perName.filter((r) => r.n !== 1)).toEqual([]);
    expect(await count('select count(*)::int as n from intake_staging where account_id = $1 and archive_id is null', [acct.id])).toBe(1);
    await killed(again);

    const workerEnv = { ...rig.env(), INTAKE_CONCURRENCY: '8', INTAKE_LOCK_MS: '10000', RECONCILE_INTERVAL_MS: '5000' };
    const attached = () => count(`select count(*)::int as n from intake_records where account_id = $1 and status = 'attached'`, [acct.id]);
    const worker = rig.spawn(workerEnv);
    await until(async () => (await attached()) >= 50, 120_000, `50 files attached by the first worker\n${worker.output().slice(-3000)}`);
    await killed(worker);
    expect(await attached()).toBeLessThan(FILES); // it really died mid-archive
    const restarted = rig.spawn(workerEnv);
    await until(async () => (await attached()) === FILES, 240_000, `all files attached after the restart\n${restarted.output().slice(-3000)}`);

    const perInvoice = await c.db.query<{ n: number }>(
      'select count(d.id)::int as n from invoices i left join documents d on d.invoice_id = i.id where i.account_id = $1 group by i.id',
      [acct.id],
    );
    expect(perInvoice).toHaveLength(invoices.length);
    expect(perInvoice.filter((r) => r.n !== 1)).toEqual([]); // one document each, never attached twice
    restarted.kill('SIGTERM');
    expect(await new Promise((r) => restarted.once('exit', (code) => r(code)))).toBe(0);
  }, 400_000);
});
