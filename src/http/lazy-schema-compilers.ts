// Fastify compiles every route's schemas when the server gets ready: ajv for the request parts,
// fast-json-stringify for the responses, 458 functions generated and compiled by V8 for the
// service's routes, about 0.4 s of a restart's main thread under load (docs/operations.md, "The
// embedded default, measured"), for routes most processes never serve. These compilers, given to
// Fastify as its `schemaController.compilersFactory`, compile a schema the first time its route
// needs it and keep the result: a route's first request pays about a millisecond per schema.
//
// The compiling itself is Fastify's own default (@fastify/ajv-compiler, and
// @fastify/fast-json-stringify-compiler), with the same options and the same external schemas
// per encapsulation context, so 400 bodies and serialized responses are what they were. Both
// compiler packages are required at the first compile too. A schema that cannot compile now fails
// its route's requests (500) instead of the start: test/ops/route-schemas.test.ts compiles every
// route's schemas to catch that.
import { createRequire } from 'node:module';
import type AjvCompiler from '@fastify/ajv-compiler';
import type SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

const require = createRequire(import.meta.url);

interface RouteSchema {
  schema?: unknown;
  method: string;
  url: string;
  httpPart?: string;
  httpStatus?: string;
  contentType?: string;
}

/** Ajv's validate function as Fastify calls it: `errors` after a failure, `schemaEnv` to be given the parent (root coercion) */
interface Validate {
  (data: unknown, ctx?: unknown): unknown;
  errors?: unknown;
  schemaEnv?: unknown;
}
type Serialize = (data: unknown) => string;
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export interface SchemaCompilers {
  /** for Fastify's `schemaController.compilersFactory` */
  compilersFactory: CompilersFactory;
  /** Compiles every schema not compiled yet (tests: a schema that cannot compile throws here); returns how many it compiled. */
  compileAll(): number;
}

/** One per Fastify instance (like Fastify's default compilers, whose caches are per instance). */
export function lazySchemaCompilers(): SchemaCompilers {
  let validators: ReturnType<typeof AjvCompiler> | undefined;
  let serializers: ReturnType<typeof SerializerSelector> | undefined;
  const pending = new Set<() => unknown>();
  /** `make` once, at the first call of the returned function; until then a route's compile waits in `pending` */
  const once = <T>(make: () => T, track = true): (() => T) => {
    let made: { value: T } | undefined;
    const get = () => {
      if (!made) {
        made = { value: make() };
        pending.delete(get);
      }
      return made.value;
    };
    if (track) pending.add(get);
    return get;
  };
  const buildValidator = (externalSchemas: unknown, options: unknown) => {
    // the context's Ajv instance (its external schemas added) is built by its first compile
    const compiler = once(() => {
      validators ??= (require('@fastify/ajv-compiler') as typeof AjvCompiler)();
      return validators(externalSchemas as never, options as never) as unknown as (route: RouteSchema) => Validate;
    }, false);
    return (route: RouteSchema): Validate => {
      const compiled = once(() => compiler()(route));
      const validate: Validate = function (this: unknown, data, ctx) {
        const fn = compiled();
        const result = fn.call(this, data, ctx);
        validate.errors = fn.errors;
        return result;
      };
      // read by Fastify before each call (see Validate): known once compiled
      Object.defineProperty(validate, 'schemaEnv', { get: () => compiled().schemaEnv });
      return validate;
    };
  };
  const buildSerializer = (externalSchemas: unknown, options: unknown) => {
    const compiler = once(() => {
      serializers ??= (require('@fastify/fast-json-stringify-compiler') as typeof SerializerSelector)();
      return serializers(externalSchemas, options as never) as unknown as (route: RouteSchema) => Serialize;
    }, false);
    return (route: RouteSchema): Serialize => {
      const compiled = once(() => compiler()(route));
      return (data) => compiled()(data);
    };
  };
  return {
    // Fastify's declared factory types are ajv's own compile signatures, not the route-level
    // compilers Fastify actually calls (and its default compilers return)
    compilersFactory: { buildValidator, buildSerializer } as unknown as CompilersFactory,
    compileAll: () => {
      let n = 0;
      for (const compile of [...pending]) {
        compile();
        n++;
      }
      return n;
    },
  };
}
