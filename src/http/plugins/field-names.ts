// Field and query names match case-insensitively (`InvoiceDate`, `invoiceDate`, `invoicedate`):
// body keys are rewritten to the schema's spelling before validation; query keys are lowercased
// by the server's query parser, and query schemas use lowercase names.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** extra names for body fields, lowercase -> schema name (e.g. number -> customerCode) */
    aliases?: Record<string, string>;
  }
}

export function lowercaseKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k.toLowerCase()] = v;
  return out;
}

/** lowercase name -> the schema's spelling, for a body schema's properties plus aliases. */
export function fieldNameMap(properties: string[], aliases: Record<string, string> = {}): Map<string, string> {
  const names = new Map<string, string>(properties.map((k) => [k.toLowerCase(), k]));
  for (const [alias, name] of Object.entries(aliases)) names.set(alias.toLowerCase(), name);
  return names;
}

/**
 * A body with its keys in the schema's spelling. Unknown keys are dropped; when two keys name
 * the same field (`Name` and `name`), the first one sent wins. Non-objects pass unchanged, for
 * the schema to refuse.
 */
export function normaliseFields(body: unknown, names: Map<string, string>): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const name = names.get(k.toLowerCase());
    if (name && out[name] === undefined) out[name] = v;
  }
  return out;
}

export function registerFieldNames(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const props = (route.schema?.body as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!props) return;
    const names = fieldNameMap(Object.keys(props), route.config?.aliases);
    const rename = (req: { body: unknown }, _reply: unknown, done: () => void) => {
      req.body = normaliseFields(req.body, names);
      done();
    };
    // biome-ignore lint/suspicious/noExplicitAny: Fastify's route hook arrays are typed per route generic
    route.preValidation = [rename, ...(route.preValidation ? [route.preValidation].flat() : [])] as any;
  });
}
