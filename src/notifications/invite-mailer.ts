// E-mails a dashboard invite when SMTP_URL is set (nodemailer); without it the admin hands the
// link over themselves (the admin API and the CLI print it).
import nodemailer from 'nodemailer';

export interface InviteMailer {
  send(to: string, url: string, hours: number): Promise<void>;
  /** any other message of the dashboard (a password reset), worded by the caller */
  sendText(to: string, subject: string, text: string): Promise<void>;
}

export function smtpInviteMailer(smtpUrl: string, from: string): InviteMailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(to, url, hours) {
      await transport.sendMail({
        from,
        to,
        subject: 'Your invoice-intake dashboard invite',
        text: `You were invited to the invoice-intake dashboard.\n\nSet your password here (the link works once, for ${hours} hours):\n\n${url}\n\nIf you did not expect this, ignore this message.\n`,
      });
    },
    async sendText(to, subject, text) {
      await transport.sendMail({ from, to, subject, text });
    },
  };
}
