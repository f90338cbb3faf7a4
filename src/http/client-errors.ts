// Requests that Node's HTTP parser refuses never reach Fastify's router or error handler; they
// get the spec's error body here too (Fastify's `clientErrorHandler`), not Fastify's own JSON.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError, errorBody } from './api-error.ts';

// llhttp's codes (HPE_*) and Node's timeout, in words a client can act on
const REASONS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line and headers together are longer than 16 KB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time'],
  HPE_HEADER_TIMEOUT: [408, 'The request headers were not received in time'],
  HPE_INVALID_METHOD: [400, 'The request method is not valid'],
  HPE_INVALID_URL: [400, 'The request URL is not valid'],
  // a space in the path makes the rest of the request line unreadable
  HPE_INVALID_CONSTANT: [400, 'The request line is not valid (a space in the path must be sent as %20)'],
  HPE_INVALID_HEADER_TOKEN: [400, 'A request header is not valid (a NUL, a control character or a folded line)'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'A request may not carry both Content-Length and Transfer-Encoding'],
  // llhttp reports Content-Length with Transfer-Encoding under this code
  HPE_INVALID_TRANSFER_ENCODING: [400, 'A request may not carry both Content-Length and Transfer-Encoding, or an unknown Transfer-Encoding'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'The Content-Length header is not valid'],
};

function clientErrorResponse(code: string | undefined): string {
  const [status, detail] = REASONS[code ?? ''] ?? [400, 'The request is not valid HTTP'];
  const body = JSON.stringify(errorBody(new ApiError(status, detail)));
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/hal+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

const answered = new WeakSet<Socket>();
// how long a refused client may go on sending before its connection is cut
const DRAIN_MS = 2000;

export function handleClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // a reset connection has nobody left to answer; the parser may report a socket more than once
  if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  this.log.debug({ code: err.code }, 'request refused by the HTTP parser');
  if (!socket.writable) return void socket.destroy();
  // Closed with bytes of the request still unread, the connection would be reset and the client
  // could lose the answer (a 64 KB URL is refused after its first 16 KB): the answer goes out with
  // a FIN, what still comes is read and dropped until the client closes, or DRAIN_MS pass.
  socket.setTimeout(DRAIN_MS, () => socket.destroy());
  socket.end(clientErrorResponse(err.code));
}
