// The headers of every response that carries a file's bytes (documents, a received file, a
// preview, an export). The bytes come from outside (a supplier's PDF, an e-mail attachment), so
// a browser must never run them as a page of this origin: nosniff keeps the declared type, a
// sandbox CSP with nothing allowed makes a document opened in a tab a unique, script-less origin,
// and downloads say attachment. Only the dashboard's preview PNG is shown inline (an <img>).
import type { FastifyReply } from 'fastify';

const FILE_CSP = "default-src 'none'; sandbox";

/** `inline` or `attachment` with an ASCII fallback name and the real one in UTF-8 (RFC 6266). */
function contentDisposition(filename: string, kind: 'inline' | 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Sets the type and the safety headers of a file response; send the bytes on the reply. */
export function fileReply(reply: FastifyReply, type: string, filename: string, kind: 'inline' | 'attachment' = 'attachment'): FastifyReply {
  return reply.type(type).headers({
    'content-disposition': contentDisposition(filename, kind),
    'x-content-type-options': 'nosniff',
    'content-security-policy': FILE_CSP,
  });
}
