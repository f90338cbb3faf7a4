// Two patches of node-postgres, checked against pg 8.23.1 and applied only to that version (another
// one runs unpatched; test/ops/postgres-adapter.test.ts fails until they are checked again). Both
// are per-query costs that CPU profiles of bench:api put among the largest of a request.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
type Parser = (value: unknown) => unknown;
interface Field { name: string; dataTypeID: number; format?: string }
interface ResultInternals {
  fields: Field[];
  _parsers?: Parser[];
  _types?: { getTypeParser(oid: number, format: string): Parser };
  _prebuiltEmptyResultObject: object | null;
}

export const PATCHED_PG_VERSION = '8.23.1';
export const pgPatched = (require('pg/package.json') as { version: string }).version === PATCHED_PG_VERSION;

if (pgPatched) {
  // 1. Every query's config is copied through property descriptors (so as not to change the
  // caller's object): 3.5 µs a query, and a dictionary-mode object each later read is slow on.
  // A spread copy of a plain object is the same thing.
  const utils = require('pg/lib/utils.js') as { normalizeQueryConfig: (config: unknown, values?: unknown, callback?: unknown) => unknown };
  const normalize = utils.normalizeQueryConfig;
  utils.normalizeQueryConfig = (config, values, callback) => {
    if (typeof config !== 'object' || config === null || Object.getPrototypeOf(config) !== Object.prototype || typeof values === 'function') return normalize(config, values, callback);
    const copy: Record<string, unknown> = { ...config };
    if (values) copy.values = values;
    if (callback) copy.callback = callback;
    return copy;
  };

  // 2. Every result (pg sends the row description with each execution) builds an empty row as a
  // null-prototype object, which V8 keeps in dictionary mode, and every row is a spread of it:
  // both go through V8's slow runtime copy, 8 µs for a 12-column row against 1.4 µs for rows
  // built by assignment. The same rows (own properties in column order, last duplicate wins); a
  // column named __proto__ keeps pg's own way, which cannot set a prototype.
  const types = (require('pg') as { types: { getTypeParser(oid: number, format: string): Parser } }).types; // pg's own pg-types
  const Result = require('pg/lib/result.js') as { prototype: ResultInternals & { addFields(f: Field[]): void; parseRow(data: unknown[]): object } };
  const { addFields, parseRow } = Result.prototype;
  Result.prototype.addFields = function (this: ResultInternals, fields: Field[]) {
    if (fields.some((f) => f.name === '__proto__')) return addFields.call(this, fields);
    this.fields = fields;
    if (fields.length) this._parsers = new Array(fields.length);
    const source = this._types ?? types;
    for (let i = 0; i < fields.length; i++) this._parsers![i] = source.getTypeParser(fields[i].dataTypeID, fields[i].format || 'text');
    this._prebuiltEmptyResultObject = null;
  };
  Result.prototype.parseRow = function (this: ResultInternals, data: unknown[]) {
    if (this._prebuiltEmptyResultObject) return parseRow.call(this, data);
    const row: Record<string, unknown> = {};
    for (let i = 0; i < data.length; i++) {
      const raw = data[i];
      const field = this.fields[i];
      row[field.name] = raw === null ? null : this._parsers![i](field.format === 'binary' ? Buffer.from(raw as Buffer) : raw);
    }
    return row;
  };
}
