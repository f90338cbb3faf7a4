// Real SMTP clients as processes: Debian's swaks and Python's smtplib (/usr/bin/python3).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ClientRun {
  code: number;
  out: string;
}

function run(cmd: string, args: string[], timeoutMs = 60_000): Promise<ClientRun> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/** swaks with each file attached as application/pdf under its name; `extra`: more swaks options. */
export async function swaks(
  port: number,
  opts: { to: string | string[]; from?: string; files?: { name: string; bytes: Buffer }[]; extra?: string[] },
): Promise<ClientRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-swaks-'));
  try {
    const attach = (opts.files ?? []).flatMap((f) => {
      const p = path.join(dir, f.name);
      fs.writeFileSync(p, f.bytes);
      return ['--attach-type', 'application/pdf', '--attach-name', f.name, '--attach', `@${p}`];
    });
    const to = Array.isArray(opts.to) ? opts.to.join(',') : opts.to;
    return await run('swaks', [
      '--server',
      '127.0.0.1',
      '--port',
      String(port),
      '--from',
      opts.from ?? 'accounts@supplier.example',
      '--to',
      to,
      '--helo',
      'client.supplier.example',
      ...attach,
      ...(opts.extra ?? []),
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A Python program given the port as argv[1] (and the rest of `args`); prints what it wants checked. */
export function python(script: string, args: string[], timeoutMs = 60_000): Promise<ClientRun> {
  return run('/usr/bin/python3', ['-c', script, ...args], timeoutMs);
}

/** smtplib's sendmail of a message file: prints OK, or the refusal's class, code and text. */
export const SMTPLIB_SEND = `
import smtplib, sys
port, sender, rcpt, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
msg = open(path, 'rb').read()
try:
    with smtplib.SMTP('127.0.0.1', port, timeout=30) as s:
        s.sendmail(sender, [rcpt], msg)
    print('OK')
except smtplib.SMTPRecipientsRefused as e:
    code, text = list(e.recipients.values())[0]
    print('RCPT', code, text.decode())
except smtplib.SMTPSenderRefused as e:
    print('MAIL', e.smtp_code, e.smtp_error.decode())
except smtplib.SMTPDataError as e:
    print('DATA', e.smtp_code, e.smtp_error.decode())
`;
