// Plain FTP only where it is safe (issue 44): without TLS the password crosses the network in
// clear, so a plain-FTP login is accepted only with an upload key that is limited to networks (a
// scanner on the office LAN): whoever reads it off the wire can only upload, and only from there.
// The API key, or an upload key that works from anywhere, is refused and told to use FTPS. Pure.
import type { KeyScope } from './upload-keys.ts';

export const PLAIN_FTP_REFUSAL = 'Plain FTP takes only a network-limited upload key; use FTPS';

/** Why a login without TLS is refused (the 530's text), or undefined when it may go on. */
export function plainFtpRefusal(secure: boolean, scope: KeyScope): string | undefined {
  if (secure) return undefined;
  return scope.uploadKey && scope.uploadKey.networks.length > 0 ? undefined : PLAIN_FTP_REFUSAL;
}
