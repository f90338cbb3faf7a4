import type { FastifyRequest } from 'fastify';
import { ApiError } from './api-error.ts';
import type { Scope } from '../domain/scope.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the auth hook on every /v2 route */
    scope: Scope | null;
  }
}

export function scopeOf(req: FastifyRequest): Scope {
  if (!req.scope) throw ApiError.unauthorized();
  return req.scope;
}

/**
 * Absolute base for the links of an API answer, which go back to the caller alone: PUBLIC_URL
 * when configured, else what the client called. Links sent to someone else (mail, copy-paste,
 * webhook payloads) use `config.links` (config/public-url.ts), never the Host header.
 */
export function baseUrl(req: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ? publicUrl.replace(/\/$/, '') : `${req.protocol}://${req.host}`;
}

/** `baseUrl` with the configured PUBLIC_URL bound, for a plugin's routes. */
export const linkBase = (publicUrl: string | undefined) => (req: FastifyRequest) => baseUrl(req, publicUrl);
