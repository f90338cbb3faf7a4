// A real SMTP receiver (smtp-server) on a free port that keeps what it is sent, parsed.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  parsed: ParsedMail;
  raw: Buffer;
}

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** mails whose envelope recipient is `address` */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        received.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          envelopeTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          parsed: await simpleParser(raw),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    to: (address) => received.filter((m) => m.envelopeTo.includes(address.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
