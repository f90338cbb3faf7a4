// A TCP proxy between a client under test and a real server, to break the connection on purpose:
// cut() resets every open connection, freeze() stops forwarding without closing (a silently dead
// link), refuse() turns new connections away.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** connections accepted so far */
  accepted(): number;
  /** connections currently open */
  open(): number;
  cut(): void;
  /** existing connections stop forwarding in both directions; new ones work */
  freeze(): void;
  refuse(on: boolean): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<{ a: net.Socket; b: net.Socket; frozen: boolean }>();
  let accepted = 0;
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = net.connect(targetPort, targetHost);
    const pair = { a: client, b: upstream, frozen: false };
    pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (d) => {
        if (!pair.frozen && !to.destroyed) to.write(d);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => accepted,
    open: () => pairs.size,
    cut() {
      for (const p of pairs) {
        p.a.resetAndDestroy();
        p.b.destroy();
      }
      pairs.clear();
    },
    freeze() {
      for (const p of pairs) p.frozen = true;
    },
    refuse(on) {
      refusing = on;
    },
    async close() {
      for (const p of pairs) {
        p.a.destroy();
        p.b.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
