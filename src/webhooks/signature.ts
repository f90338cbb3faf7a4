// Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` + Base64 HMAC-SHA256 of
// `id.timestamp.body` under the secret's decoded bytes; several signatures are separated by spaces.
// node:crypto instead of the standardwebhooks package's pure-JS HMAC; test/unit/webhook-signature
// checks the output with that package's verifier.
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three headers of a delivery, signed with every secret that signs now. */
export function signatureHeaders(secrets: readonly string[], id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signPayload(s, id, timestamp, body)).join(' '),
  };
}
