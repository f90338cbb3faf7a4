// What the domain refuses, by kind. Each edge says it in its own terms: HTTP turns a kind into a
// status and the spec's error body (http/api-error.ts), intake into a record's reason.

export type ErrorKind = 'invalid' | 'unauthorized' | 'not_found' | 'gone' | 'conflict' | 'unprocessable' | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    /** the request field at fault, as the spec names it */
    readonly field?: string,
  ) {
    super(detail);
  }

  static invalid = (detail: string, field?: string) => new DomainError('invalid', detail, field);
  static wrongFormat = (field: string) => new DomainError('invalid', `Field ${field} in wrong format`, field);
  static unprocessable = (detail: string, field: string) => new DomainError('unprocessable', detail, field);
  static notFound = (what: string, id: string, field?: string) => new DomainError('not_found', `No ${what} exists with id ${id}.`, field);
  /** `found` itself, or not_found when a lookup by `id` found nothing */
  static unlessFound = <T>(found: T | null | undefined, what: string, id: string): T => {
    if (found == null) throw DomainError.notFound(what, id);
    return found;
  };
  /** The record of a lookup that keeps deleted rows: not_found when there is none, gone when deleted. */
  static unlessDeleted = <T>(found: { record: T; deleted: boolean } | undefined, what: string, id: string, field?: string): T => {
    if (!found) throw DomainError.notFound(what, id, field);
    if (found.deleted) throw DomainError.gone(what, id, field);
    return found.record;
  };
  static gone = (what: string, id: string, field?: string) => new DomainError('gone', `The ${what} with id ${id} was deleted.`, field);
  static conflict = (detail: string, field?: string) => new DomainError('conflict', detail, field);
  static unavailable = (detail: string) => new DomainError('unavailable', detail);
  static unauthorized = (detail: string) => new DomainError('unauthorized', detail);
}
