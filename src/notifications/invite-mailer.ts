// E-mails a dashboard invite when SMTP_URL is set (nodemailer); without it the admin hands the
// link over themselves (the admin API and the CLI print it).

export interface InviteMailer {
  /** a message of the dashboard (an invite, a password reset), worded by the caller in its reader's language */
  sendText(to: string, subject: string, text: string): Promise<void>;
}

export function smtpInviteMailer(smtpUrl: string, from: string): InviteMailer {
  // nodemailer (0.1 s of CPU to load) at the first message: most installations send none
  let transport: Promise<{ sendMail(m: object): Promise<unknown> }> | undefined;
  return {
    async sendText(to, subject, text) {
      transport ??= import('nodemailer').then((m) => m.default.createTransport(smtpUrl));
      await (await transport).sendMail({ from, to, subject, text });
    },
  };
}
