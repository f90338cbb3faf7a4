// What the API logs about a request. A client that puts its key in the URL by mistake
// (?api_key=live_...) must not get it written to the log: key-shaped text is masked.
import type { FastifyRequest } from 'fastify';

const KEY_LIKE = /\b(live|test|adm)_[0-9A-Za-z]{16,}/g;

export const maskKeys = (text: string) => text.replace(KEY_LIKE, '$1_[redacted]');

export const requestSerializers = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: maskKeys(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};
