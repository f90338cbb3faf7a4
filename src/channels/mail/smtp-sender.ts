// Sends replies through SMTP_URL with nodemailer.
import nodemailer from 'nodemailer';
import type { ReplySender } from './mail-feedback.ts';

export function smtpReplySender(smtpUrl: string): ReplySender {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(m) {
      await transport.sendMail({
        from: m.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        inReplyTo: m.inReplyTo,
        references: m.references,
        headers: m.headers,
      });
    },
    close: () => transport.close(),
  };
}
