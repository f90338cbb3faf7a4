// The HTTP edge's error: a status, the spec's body {status, title, detail, field?} and headers.
// Domain errors become one here (fromDomain); the one formatter is http/error-handler.ts.
import { DomainError, type ErrorKind } from '../domain/errors.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const STATUS: Record<ErrorKind, number> = { invalid: 400, unauthorized: 401, not_found: 404, gone: 410, conflict: 409, unprocessable: 422, unavailable: 503 };

const KIND_HEADERS: Partial<Record<ErrorKind, Record<string, string>>> = {
  unauthorized: { 'www-authenticate': 'Bearer' },
  // a passing state (Redis away): tell clients when to come back
  unavailable: { 'retry-after': '10' },
};

export class ApiError extends Error {
  readonly title: string;
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.title = TITLES[status] ?? 'Error';
  }

  // 'unavailable' is a passing state (Redis away): tell clients when to come back
  static fromDomain = (e: DomainError) => new ApiError(STATUS[e.kind], e.detail, e.field, KIND_HEADERS[e.kind]);
  static badRequest = (detail: string, field?: string) => new ApiError(400, detail, field);
  static wrongFormat = (field: string) => ApiError.fromDomain(DomainError.wrongFormat(field));
  static unauthorized = (detail = 'Missing or invalid API key.') => new ApiError(401, detail, undefined, { 'www-authenticate': 'Bearer' });
}

export interface ErrorBody {
  status: number;
  title: string;
  detail: string;
  field?: string;
}

export function errorBody(e: ApiError): ErrorBody {
  return e.field ? { status: e.status, title: e.title, detail: e.detail, field: e.field } : { status: e.status, title: e.title, detail: e.detail };
}
