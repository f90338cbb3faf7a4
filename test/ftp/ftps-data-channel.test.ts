// The FTPS data connection, driven with node:tls: the TLS handshake after the 150 (as ftplib, lftp
// and PHP do it) or before it, TLS session resumption (FileZilla requires it), PROT, active mode
// refused, FEAT, and transfers that stall say in which phase.
import net from 'node:net';
import tls from 'node:tls';
import { describe, expect, it, vi } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { connectFtp, intakeIdOf, upload } from './ftp-clients.ts';
import { ftpTestFile } from './ftp-harness.ts';
import { RawFtp } from './raw-ftp.ts';

const TRANSFER_TIMEOUT_MS = 1500;
const t = ftpTestFile({ config: { ftpTransferTimeoutMs: TRANSFER_TIMEOUT_MS } });

/** Logged in over FTPS (these client TLS options) with PBSZ 0 and PROT P sent. */
async function session(options: tls.ConnectionOptions = {}): Promise<RawFtp> {
  const ftp = await RawFtp.loggedIn(t.port, t.account.ftpUsername, t.account.liveKey, options);
  expect(await ftp.send('PBSZ 0')).toMatch(/^200/);
  expect(await ftp.send('PROT P')).toMatch(/^200/);
  return ftp;
}

/** EPSV, then a TCP connection to its port (no TLS yet). */
async function dataTcp(ftp: RawFtp): Promise<net.Socket> {
  const port = Number(/\|\|\|(\d+)\|/.exec(await ftp.send('EPSV'))![1]);
  const socket = net.connect({ port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

function handshake(socket: net.Socket, options: tls.ConnectionOptions = {}): Promise<tls.TLSSocket> {
  const secure = tls.connect({ socket, rejectUnauthorized: false, ...options });
  return new Promise((resolve, reject) => secure.once('secureConnect', () => resolve(secure)).once('error', reject));
}

/** ftp_transfer_stalls_total{phase} as the service's GET /metrics serves it. */
async function stalls(phase: string): Promise<number> {
  const res = await t.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const sample = new RegExp(`^ftp_transfer_stalls_total\\{phase="${phase}"\\} (\\d+)$`, 'm').exec(res.body);
  return sample ? Number(sample[1]) : 0;
}

const loggedStall = (phase: string) => t.logLines.some((l) => l.includes('ftp transfer stalled') && l.includes(`"phase":"${phase}"`));

describe('the data connection TLS handshake', () => {
  it('a client that shakes hands only after reading 150 (ftplib, lftp, PHP) completes its upload: attached', async () => {
    const invoice = await t.invoice(t.account.liveKey);
    const ftp = await session();
    try {
      const tcp = await dataTcp(ftp);
      ftp.socket.write(`STOR ${invoice.invoiceNumber}.pdf\r\n`);
      // nothing but TCP yet: the server must answer 150 before the handshake
      expect(await ftp.reply()).toMatch(/^150/);
      const data = await handshake(tcp);
      data.end(await makePdf('after 150'));
      const done = await ftp.reply();
      expect(done).toMatch(/^226/);
      expect(await t.waitFor(t.account.liveKey, intakeIdOf(done))).toMatchObject({ status: 'attached', invoice: invoice.id });
    } finally {
      ftp.close();
    }
  });

  it('LIST with the handshake after 150 delivers the listing', async () => {
    const ftp = await session();
    try {
      const tcp = await dataTcp(ftp);
      ftp.socket.write('LIST\r\n');
      expect(await ftp.reply()).toMatch(/^150/);
      const data = await handshake(tcp);
      const chunks: Buffer[] = [];
      data.on('data', (c) => chunks.push(c));
      await new Promise((resolve) => data.once('end', resolve));
      expect(await ftp.reply()).toMatch(/^226/);
      expect(Buffer.concat(chunks).toString()).toMatch(/\.pdf\r\n/);
    } finally {
      ftp.close();
    }
  });

  for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
    it(`data connections resume the control connection's TLS session (${version})`, async () => {
      const ftp = await session({ minVersion: version, maxVersion: version });
      try {
        const control = ftp.socket as tls.TLSSocket;
        // TLS 1.3 sends its session ticket after the handshake: wait until the client has one
        await vi.waitFor(() => expect(control.getSession()).toBeDefined());
        const data = await handshake(await dataTcp(ftp), { session: control.getSession(), minVersion: version, maxVersion: version });
        expect(data.isSessionReused()).toBe(true);
        ftp.socket.write('NLST\r\n');
        expect(await ftp.reply()).toMatch(/^150/);
        expect(await ftp.reply()).toMatch(/^226/);
        data.destroy();
      } finally {
        ftp.close();
      }
    });
  }
});

describe('commands around the data connection', () => {
  it('FEAT lists what the server does (no MLSD/MLST), and each works; PORT and EPRT are refused with the reason; PROT C is refused while TLS is required', async () => {
    const client = await connectFtp(t.port, t.account.ftpUsername, t.account.liveKey);
    await upload(client, 'feat-check.pdf', Buffer.from('not a PDF')).finally(() => client.close());
    const ftp = await session();
    try {
      expect((await ftp.send('FEAT')).split('\n')).toEqual([
        '211-Extensions supported',
        ' AUTH TLS',
        ' PBSZ',
        ' PROT',
        ' EPSV',
        ' MDTM',
        ' PASV',
        ' SIZE',
        ' UTF8',
        '211 End',
      ]);
      expect(await ftp.send('SIZE feat-check.pdf')).toBe('213 9');
      expect(await ftp.send('SIZE feat-check.pdf.error.txt')).toMatch(/^213 \d+$/);
      expect(await ftp.send('MDTM feat-check.pdf')).toMatch(/^213 \d{14}(\.\d+)?$/);
      expect(await ftp.send('OPTS UTF8 ON')).toMatch(/^200/);
      expect(await ftp.send('MLSD')).toMatch(/^502/);
      expect(await ftp.send('MLST x.pdf')).toMatch(/^502/);
      expect(await ftp.send('PORT 127,0,0,1,200,10')).toBe('502 Active mode (PORT/EPRT) is not supported: use passive mode (PASV or EPSV)');
      expect(await ftp.send('EPRT |1|127.0.0.1|51210|')).toMatch(/^502 Active mode/);
      expect(await ftp.send('PROT C')).toMatch(/^534 /);
      expect(await ftp.send('PROT P')).toMatch(/^200/);
    } finally {
      ftp.close();
    }
  });

  it('a transfer before PROT P is refused (521) when TLS is required', async () => {
    const ftp = await RawFtp.loggedIn(t.port, t.account.ftpUsername, t.account.liveKey);
    try {
      expect(await ftp.send('PASV')).toMatch(/^227/);
      expect(await ftp.send('LIST')).toMatch(/^521 /);
    } finally {
      ftp.close();
    }
  });
});

describe('a stalled transfer says which phase waited, in the log and in /metrics (ftp_transfer_stalls_total)', () => {
  it.each<[string, string, (ftp: RawFtp) => Promise<void>]>([
    [
      'pasv',
      'STOR without PASV/EPSV',
      async (ftp) => {
        expect(await ftp.send('STOR x.pdf')).toMatch(/^425 No data connection: send PASV or EPSV first/);
      },
    ],
    [
      'tcp_accept',
      'the client never connects to the passive port',
      async (ftp) => {
        expect(await ftp.send('EPSV')).toMatch(/^229/);
        expect(await ftp.send('STOR x.pdf')).toMatch(/^425 /);
      },
    ],
    [
      'tls_handshake',
      'the client connects but never starts TLS',
      async (ftp) => {
        const tcp = await dataTcp(ftp);
        expect(await ftp.send('STOR x.pdf')).toMatch(/^150/);
        expect(await ftp.reply()).toMatch(/^426 /);
        // the handshake timer may report after the 426 (it counts, then logs)
        await expect.poll(() => loggedStall('tls_handshake')).toBe(true);
        tcp.destroy();
      },
    ],
    [
      'after_150',
      'TLS is up but no byte comes',
      async (ftp) => {
        const data = await handshake(await dataTcp(ftp));
        expect(await ftp.send('STOR x.pdf')).toMatch(/^150/);
        expect(await ftp.reply()).toMatch(/^426 Transfer aborted \(stalled\)/);
        data.destroy();
      },
    ],
  ])('%s: %s', async (phase, _, stall) => {
    const before = await stalls(phase);
    const ftp = await session();
    try {
      await stall(ftp);
      expect(await stalls(phase)).toBe(before + 1);
      expect(loggedStall(phase)).toBe(true);
    } finally {
      ftp.close();
    }
  });
});
