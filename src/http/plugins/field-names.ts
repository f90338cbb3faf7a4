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

export function registerFieldNames(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const props = (route.schema?.body as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!props) return;
    const names = new Map<string, string>(Object.keys(props).map((k) => [k.toLowerCase(), k]));
    for (const [alias, name] of Object.entries(route.config?.aliases ?? {})) names.set(alias.toLowerCase(), name);
    const rename = async (req: { body: unknown }) => {
      const body = req.body;
      if (!body || typeof body !== 'object' || Array.isArray(body)) return;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(body)) {
        const name = names.get(k.toLowerCase());
        if (name && out[name] === undefined) out[name] = v;
      }
      req.body = out;
    };
    route.preValidation = [rename, ...(route.preValidation ? [route.preValidation].flat() : [])] as any;
  });
}
