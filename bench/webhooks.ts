// Webhook latency: change -> receiver. The service runs as `npm start` runs it (one process, roles
// api + worker) on a fresh PostgreSQL database and a private redis-server; this process makes
// changes (POST /v2/payments, each one event payment.created) at a steady rate and receives the
// webhooks on a local HTTP endpoint. Latency runs from the API's answer (the change committed) to
// the delivery's arrival. Reference, same run, same receiver: a bare HTTP POST from this process.
//
//   npm run bench:webhooks -- [--events 1000] [--rate 100]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomToken } from '../src/domain/ids.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { until } from '../testkit/wait.ts';
import { apiCaller, benchServiceEnv, buildService, cpuMs, pct, pool, stopChild, waitUntilReady } from './bench-kit.ts';

const { values } = parseArgs({ options: { events: { type: 'string', default: '1000' }, rate: { type: 'string', default: '100' } } });
const EVENTS = Number(values.events);
const RATE = Number(values.rate);

const arrivals = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    arrivals.set(body.data?.id ?? body.id, at);
    res.writeHead(204).end();
  });
});

/** Runs `fn(i)` at RATE per second, each at its own moment, without waiting for the previous one. */
async function paced(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  const t0 = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    running.push(fn(i));
  }
  await Promise.all(running);
}

const summary = (label: string, lat: number[], cpu: number, seconds: number) => {
  lat.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(34)} p50 ${pct(lat, 50).toFixed(1).padStart(6)} ms   p99 ${pct(lat, 99).toFixed(1).padStart(6)} ms   max ${lat[lat.length - 1].toFixed(1).padStart(6)} ms   client CPU ${((cpu / 1000 / seconds) * 100).toFixed(1)} %`,
  );
};

async function main() {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const port = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const service = spawn(process.execPath, buildService(), {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...benchServiceEnv({
        port,
        databaseUrl: db.url,
        redisUrl: redis.url,
        adminToken,
        dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-')),
      }),
      ROLES: 'api,worker',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(async () => (await fetch(`${base}/healthz`)).ok);
    const call = apiCaller(base);
    const key = (await call('POST', '/admin/accounts', adminToken, { name: 'bench' })).liveKey as string;
    await call('POST', '/v2/webhooks', key, { url: hookUrl, events: ['payment.created'] });
    const customer = await call('POST', '/v2/customers', key, { customerCode: 'B-1', name: 'Bench' });
    const warm = 50;
    const invoices: string[] = [];
    await pool(EVENTS + warm, 16, async (i) => {
      invoices[i] = (
        await call('POST', '/v2/invoices', key, {
          customer: customer.id,
          invoiceNumber: `WH-${i}`,
          invoiceDate: '01-02-2026',
          invoiceDuedate: '01-03-2026',
          invoiceTotal: '10.00',
        })
      ).id;
    });
    const pay = async (i: number) => {
      const p = await call('POST', '/v2/payments', key, { invoice: invoices[i], date: '02-02-2026', amount: '1.00' });
      return { id: p.id as string, committed: performance.now() };
    };
    // warm-up (JIT, pools, keep-alive connections), not measured
    await paced(warm, async (i) => void (await pay(EVENTS + i)));
    await until(() => arrivals.size >= warm, 30_000, 'the warm-up deliveries');

    // reference: a bare POST from this process to the same receiver, at the same rate
    const agent = new http.Agent({ keepAlive: true });
    const bare: number[] = [];
    let cpu0 = cpuMs([process.pid]);
    let t0 = performance.now();
    await paced(EVENTS, async (i) => {
      const id = `bare-${i}`;
      const sent = performance.now();
      await new Promise<void>((resolve, reject) => {
        const req = http.request(hookUrl, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => res.resume().on('end', resolve));
        req.on('error', reject);
        req.end(JSON.stringify({ id, data: { id } }));
      });
      bare.push(arrivals.get(id)! - sent);
    });
    const bareCpu = cpuMs([process.pid]) - cpu0;
    const bareSeconds = (performance.now() - t0) / 1000;

    const svcCpu0 = cpuMs([service.pid!]);
    cpu0 = cpuMs([process.pid]);
    t0 = performance.now();
    const changes: { id: string; committed: number }[] = [];
    await paced(EVENTS, async (i) => void changes.push(await pay(i)));
    await until(() => changes.every((c) => arrivals.has(c.id)), 60_000, 'every webhook');
    const seconds = (performance.now() - t0) / 1000;
    const clientCpu = cpuMs([process.pid]) - cpu0;
    const svcCpu = cpuMs([service.pid!]) - svcCpu0;

    console.log(`\nWebhook delivery latency, ${EVENTS} events at ${RATE}/s (${os.cpus().length} cores, PostgreSQL, one service process api+worker)`);
    summary('reference: bare POST -> receiver', bare, bareCpu, bareSeconds);
    summary(
      'change committed -> webhook',
      changes.map((c) => arrivals.get(c.id)! - c.committed),
      clientCpu,
      seconds,
    );
    console.log(`service CPU during the webhook run: ${((svcCpu / 1000 / seconds) * 100).toFixed(1)} % of one core (API requests + outbox + delivery)`);
  } finally {
    await stopChild(service);
    receiver.close();
    await db.drop();
    await redis.stop();
  }
}

await main();
process.exit(0);
