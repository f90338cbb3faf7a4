// The one error type of the service. Everything a client can cause ends up as an ApiError and is
// written by the one formatter in http/error-handler.ts as the spec's body {status, title, detail, field?}.

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
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

  /** The same error with another detail text. */
  withDetail(detail: string): ApiError {
    return new ApiError(this.status, detail, this.field, this.headers);
  }

  static badRequest = (detail: string, field?: string) => new ApiError(400, detail, field);
  static wrongFormat = (field: string) => new ApiError(400, `Field ${field} in wrong format`, field);
  static unprocessable = (detail: string, field: string) => new ApiError(422, detail, field);
  static notFound = (kind: string, id: string) => new ApiError(404, `No ${kind} exists with id ${id}.`);
  static gone = (kind: string, id: string) => new ApiError(410, `The ${kind} with id ${id} was deleted.`);
  static conflict = (detail: string, field?: string) => new ApiError(409, detail, field);
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
