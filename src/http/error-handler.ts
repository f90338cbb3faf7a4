// The one formatter of error bodies: {status, title, detail, field?} as application/hal+json.
import { errorPage, wantsHtmlError } from './dashboard/error-page.ts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { ApiError, errorBody } from './api-error.ts';

// biome-ignore lint/suspicious/noExplicitAny: ajv's params differ per keyword
type AjvError = { instancePath: string; keyword: string; params: Record<string, any>; message?: string };

/** Turns a schema violation into the spec's 400 naming the field. */
function validationError(errors: AjvError[], context: string | undefined): ApiError {
  const e = errors[0];
  // an array item's fault is its field's: events/0 -> events
  const path = e.instancePath.split('/').filter((p) => p && !/^\d+$/.test(p));
  const field = e.keyword === 'required' ? e.params.missingProperty : path[path.length - 1];
  if (!field)
    return ApiError.badRequest(context === 'body' ? 'The request body must be a JSON object or form-encoded fields' : `Invalid ${context ?? 'request'}`);
  switch (e.keyword) {
    case 'required':
      return ApiError.badRequest(`Field ${field} is required`, field);
    case 'maxLength':
      return ApiError.badRequest(`Field ${field} is longer than ${e.params.limit} characters`, field);
    case 'minLength':
      return ApiError.badRequest(`Field ${field} may not be empty`, field);
    case 'enum':
      return ApiError.badRequest(`Field ${field} must be one of ${(e.params.allowedValues as string[]).join(', ')}`, field);
    case 'maximum':
    case 'minimum':
      return ApiError.badRequest(`Field ${field} ${e.message ?? 'is out of range'}`, field);
    default:
      return ApiError.wrongFormat(field);
  }
}

/** Any error a request can raise, as an ApiError; unknown errors become a logged 500. */
export function toApiError(err: unknown, req: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return ApiError.fromDomain(err);
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation) return validationError(fe.validation, fe.validationContext);
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'Send the body as application/json (or application/x-www-form-urlencoded)');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // only a document's Content can be that large: say which field to shrink
      return req.url.startsWith('/v2/documents')
        ? new ApiError(413, 'The request body is too large: Content may be at most 5242880 characters', 'content')
        : new ApiError(413, 'The request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ApiError.badRequest('The JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ApiError.badRequest('The body is not valid JSON');
  }
  if (err instanceof SyntaxError || fe.statusCode === 400) return ApiError.badRequest(fe.message.includes('JSON') ? 'The body is not valid JSON' : fe.message);
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return new ApiError(fe.statusCode, fe.message);
  req.log.error({ err }, 'unhandled error');
  return new ApiError(fe.statusCode && fe.statusCode >= 500 ? fe.statusCode : 500, 'Something went wrong on our side; please retry later');
}

export function sendError(reply: FastifyReply, e: ApiError): FastifyReply {
  // a person's browser gets a page; API clients the spec's JSON body
  if (wantsHtmlError(reply.request))
    return reply
      .code(e.status)
      .headers(e.headers)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(errorPage(reply.request, e.status, e.detail));
  return reply.code(e.status).headers(e.headers).type('application/hal+json').send(errorBody(e));
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => sendError(reply, toApiError(err, req)));
}
