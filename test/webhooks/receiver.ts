// A real HTTP endpoint for webhook tests, on a random port: records every request and answers
// with the status the test scripts (200 unless told otherwise).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** status for the next requests, in order; then 200 */
  script: number[];
  /** when set, requests are held (no answer) until release() */
  hold: boolean;
  release(): void;
  of(type: string, path?: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const held: http.ServerResponse[] = [];
  const self: Receiver = {
    url: '',
    received: [],
    script: [],
    hold: false,
    release() {
      this.hold = false;
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
    },
    of(type, path) {
      return this.received.filter((r) => r.json?.type === type && (path === undefined || r.path === path));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {}
      self.received.push({ path: req.url ?? '/', headers: req.headers as Record<string, string>, body, json, at: performance.now() });
      if (self.hold) return void held.push(res);
      const status = self.script.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `refused with ${status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}
