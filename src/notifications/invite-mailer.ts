// E-mails a dashboard invite when SMTP_URL is set (nodemailer); without it the admin hands the
// link over themselves (the admin API and the CLI print it).
import nodemailer from 'nodemailer';

export interface InviteMailer {
  /** a message of the dashboard (an invite, a password reset), worded by the caller in its reader's language */
  sendText(to: string, subject: string, text: string): Promise<void>;
}

export function smtpInviteMailer(smtpUrl: string, from: string): InviteMailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async sendText(to, subject, text) {
      await transport.sendMail({ from, to, subject, text });
    },
  };
}
