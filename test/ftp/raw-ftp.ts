// A line-oriented FTP control connection for what basic-ftp and curl will not do: commands out
// of order, a chosen local address, AUTH TLS with chosen TLS options.
import net from 'node:net';
import tls from 'node:tls';

/** A line-oriented FTP control connection (optionally upgraded with AUTH TLS), from any local address. */
export class RawFtp {
  private buffer = '';
  private waiters: ((line: string) => void)[] = [];
  private lines: string[] = [];
  socket: net.Socket | tls.TLSSocket;
  closed = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    this.listen(socket);
  }

  static async connect(port: number, localAddress = '127.0.0.1'): Promise<{ ftp: RawFtp; greeting: string }> {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const ftp = new RawFtp(socket);
    return { ftp, greeting: await ftp.reply() };
  }

  /** Connected, AUTH TLS (with these client TLS options), logged in and in binary mode (TYPE I, as
   * uploading clients send it): rejects unless PASS got 230. */
  static async loggedIn(port: number, user: string, password: string, options: tls.ConnectionOptions = {}): Promise<RawFtp> {
    const { ftp } = await RawFtp.connect(port);
    try {
      await ftp.startTls(options);
      const reply = await ftp.login(user, password);
      if (!reply.startsWith('230')) throw new Error(`login refused: ${reply}`);
      const type = await ftp.send('TYPE I');
      if (!type.startsWith('200')) throw new Error(`TYPE I refused: ${type}`);
      return ftp;
    } catch (err) {
      ftp.close();
      throw err;
    }
  }

  private listen(socket: net.Socket) {
    socket.on('data', (d) => {
      this.buffer += d.toString('utf8');
      let i;
      while ((i = this.buffer.indexOf('\r\n')) >= 0) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 2);
        const w = this.waiters.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w('(closed)');
    });
    socket.on('error', () => {});
  }

  private nextLine(): Promise<string> {
    const l = this.lines.shift();
    if (l !== undefined) return Promise.resolve(l);
    if (this.closed) return Promise.resolve('(closed)');
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next complete reply (multi-line replies joined with \n). */
  async reply(): Promise<string> {
    const first = await this.nextLine();
    if (!/^\d{3}-/.test(first)) return first;
    const out = [first];
    for (;;) {
      const l = await this.nextLine();
      out.push(l);
      if (l === '(closed)' || (l.startsWith(first.slice(0, 3)) && l[3] === ' ')) return out.join('\n');
    }
  }

  async send(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** AUTH TLS and the handshake, with these client TLS options. */
  async startTls(options: tls.ConnectionOptions = {}): Promise<string> {
    const reply = await this.send('AUTH TLS');
    if (!reply.startsWith('234')) return reply;
    const raw = this.socket as net.Socket;
    raw.removeAllListeners('data');
    const secure = tls.connect({ socket: raw, rejectUnauthorized: false, ...options });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    this.socket = secure;
    this.listen(secure as unknown as net.Socket);
    return reply;
  }

  async login(user: string, password: string): Promise<string> {
    const u = await this.send(`USER ${user}`);
    if (!u.startsWith('331')) return u;
    return this.send(`PASS ${password}`);
  }

  close() {
    this.socket.destroy();
  }
}

/** USER/PASS over FTPS from a given local address (127.0.0.x): the reply to PASS. */
export async function loginFrom(port: number, user: string, password: string, localAddress = '127.0.0.1'): Promise<string> {
  const { ftp } = await RawFtp.connect(port, localAddress);
  try {
    await ftp.startTls();
    return await ftp.login(user, password);
  } finally {
    ftp.close();
  }
}
