// bench:soak's clients, one kind per channel, each a connection kept for the run as an
// integration's would be: FTPS (basic-ftp, explicit TLS), SFTP (ssh2), HTTP (POST /v2/imports,
// keep-alive) and SMTP (nodemailer's SMTP transport sending the corpus's raw messages).
import { Readable } from 'node:stream';
import { Client as FtpClient } from 'basic-ftp';
import nodemailer from 'nodemailer';
import ssh2, { type SFTPWrapper } from 'ssh2';
import { bodyPoster } from '../bench-kit.ts';

export interface Lane {
  send(k: number): Promise<void>;
  close(): Promise<void>;
}

export interface Target {
  base: string;
  key: string;
  user: string;
  ftpPort: number;
  sftpPort: number;
  smtpPort: number;
  to: string;
}

type Files = { name: string; bytes: Buffer }[];
const fileOf = (files: Files, k: number) => files[k % files.length];
const nameOf = (files: Files, k: number) => `S${k}-${fileOf(files, k).name}`;

export async function ftpsLane(t: Target, files: Files): Promise<Lane> {
  const c = new FtpClient(30_000);
  await c.access({ host: '127.0.0.1', port: t.ftpPort, user: t.user, password: t.key, secure: true, secureOptions: { rejectUnauthorized: false } });
  return {
    send: async (k) => void (await c.uploadFrom(Readable.from(fileOf(files, k).bytes), nameOf(files, k))),
    close: async () => c.close(),
  };
}

export async function sftpLane(t: Target, files: Files): Promise<Lane> {
  const client = new ssh2.Client();
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
    client.on('error', reject);
    client.on('ready', () => client.sftp((err, s) => (err ? reject(err) : resolve(s))));
    client.connect({ host: '127.0.0.1', port: t.sftpPort, username: t.user, password: t.key, readyTimeout: 30_000 });
  });
  return {
    send: (k) => new Promise((resolve, reject) => sftp.writeFile(nameOf(files, k), fileOf(files, k).bytes, (err) => (err ? reject(err) : resolve()))),
    close: async () => void client.end(),
  };
}

export async function httpLane(t: Target, files: Files): Promise<Lane> {
  const post = bodyPoster(t.base, t.key, 1);
  return {
    send: (k) => post('/v2/imports', Buffer.from(JSON.stringify({ Filename: nameOf(files, k), Content: fileOf(files, k).bytes.toString('base64') }))),
    close: async () => post.close(),
  };
}

export async function smtpLane(t: Target, messages: string[]): Promise<Lane> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: t.smtpPort,
    secure: false,
    tls: { rejectUnauthorized: false },
    pool: true,
    maxConnections: 1,
    maxMessages: Infinity,
  });
  return {
    async send(k) {
      // a message id of its own each time: the receiver keeps one copy of a message it has seen
      const raw = messages[k % messages.length];
      const id = `Message-ID: <soak-${k}-${Date.now()}@bench.example>`;
      const unique = /^Message-ID:.*$/im.test(raw) ? raw.replace(/^Message-ID:.*$/im, id) : `${id}\r\n${raw}`;
      await transport.sendMail({ envelope: { from: 'billing@supplier.example', to: [t.to] }, raw: Buffer.from(unique, 'latin1') });
    },
    close: async () => transport.close(),
  };
}
