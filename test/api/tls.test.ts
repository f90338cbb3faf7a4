// HTTPS with TLS_CERT/TLS_KEY: TLS 1.2 and up only.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/test-app.ts';

let dir: string;
let service: RunningService;
let db: Database;
let port: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      path.join(dir, 'tls.key'),
      '-out',
      path.join(dir, 'tls.crt'),
    ],
    { stdio: 'ignore' },
  );
  // the way an operator configures it: TLS_CERT and TLS_KEY in the environment
  const config = testConfig({ roles: ['api'] }, { TLS_CERT: path.join(dir, 'tls.crt'), TLS_KEY: path.join(dir, 'tls.key') });
  db = await openTestDatabase();
  service = await startService(config, createLogger('silent'), { db });
  port = Number(new URL(service.apiUrl!).port);
});
afterAll(async () => {
  await service?.stop();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function handshake(opts: tls.ConnectionOptions): Promise<{ protocol: string | null } | { error: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false, ...opts });
    socket.once('secureConnect', () => {
      const protocol = socket.getProtocol();
      socket.end();
      resolve({ protocol });
    });
    socket.once('error', (error) => resolve({ error }));
  });
}

describe('TLS', () => {
  it('serves HTTPS on the configured port', async () => {
    expect(service.apiUrl).toMatch(/^https:\/\//);
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false }, (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve(data));
        })
        .on('error', reject);
    });
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
  });

  it('refuses a TLS 1.1 handshake', async () => {
    const result = await handshake({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    expect('error' in result).toBe(true);
    const { error } = result as { error: NodeJS.ErrnoException };
    // the server's "protocol version" alert, not a client-side refusal to offer TLS 1.1
    expect(`${error.code} ${error.message}`).toMatch(/PROTOCOL_VERSION|protocol version/i);
  });

  it('accepts TLS 1.2 and TLS 1.3', async () => {
    expect(await handshake({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })).toEqual({ protocol: 'TLSv1.2' });
    expect(await handshake({ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' })).toEqual({ protocol: 'TLSv1.3' });
  });

  it('config refuses a certificate without a key', () => {
    expect(() => testConfig({}, { TLS_CERT: path.join(dir, 'tls.crt') })).toThrow(/TLS_CERT and TLS_KEY must be set together/);
  });
});
