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

export function clientErrorResponse(code: string | undefined): string {
  const [status, detail] = REASONS[code ?? ''] ?? [400, 'The request is not valid HTTP'];
  const body = JSON.stringify(errorBody(new ApiError(status, detail)));
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/hal+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export function handleClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // a reset connection has nobody left to answer
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ code: err.code }, 'request refused by the HTTP parser');
  if (socket.writable) socket.end(clientErrorResponse(err.code));
  socket.destroy();
}
