// The stand-in for Microsoft's and Google's token endpoints (the only one: they cannot be reached
// here) and the introspection endpoint Dovecot's oauth2 passdb asks: issues bearer tokens by the
// client-credentials flow (secret, or a certificate's signed client assertion) or a refresh
// token (rotated on each use, as Microsoft does), and can expire or revoke them.
import { createHash, randomBytes, verify, X509Certificate } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenServer {
  tokenUrl: string;
  introspectionUrl: string;
  /** every request to the token endpoint, its form fields */
  requests: Record<string, string>[];
  /** every access token issued, newest last */
  issued: { token: string; expiresAt: number }[];
  /** lifetime of new access tokens (seconds) */
  lifetimeSeconds: number;
  /** the token endpoint refuses every request from now on (the app's secret or grant was revoked) */
  refuseAll: boolean;
  /** introspection says this access token is no longer active */
  revoke(token: string): void;
  refreshToken: string;
  close(): Promise<void>;
}

export async function startTokenServer(o: { clientId: string; clientSecret: string; cert?: string; username: string }): Promise<TokenServer> {
  const revoked = new Set<string>();
  const form = (req: http.IncomingMessage) =>
    new Promise<Record<string, string>>((resolve) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(body))));
    });
  const x5t = o.cert ? createHash('sha1').update(new X509Certificate(o.cert).raw).digest('base64url') : undefined;
  const assertionValid = (jwt: string, aud: string) => {
    if (!o.cert) return false;
    const [h, c, sig] = jwt.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
    const now = Date.now() / 1000;
    return (
      header.alg === 'RS256' &&
      header.x5t === x5t &&
      claims.aud === aud &&
      claims.iss === o.clientId &&
      claims.sub === o.clientId &&
      claims.exp > now &&
      claims.nbf <= now + 5 &&
      verify('sha256', Buffer.from(`${h}.${c}`), new X509Certificate(o.cert).publicKey, Buffer.from(sig, 'base64url'))
    );
  };
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const s: TokenServer = {
    tokenUrl: '',
    introspectionUrl: '',
    requests: [],
    issued: [],
    lifetimeSeconds: 3600,
    refuseAll: false,
    refreshToken: `rt_${randomBytes(12).toString('hex')}`,
    revoke: (token) => revoked.add(token),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server = http.createServer(async (req, res) => {
    const f = await form(req);
    if (req.url === '/introspect') {
      const t = s.issued.find((x) => x.token === f.token);
      const active = Boolean(t && t.expiresAt > Date.now() && !revoked.has(t.token));
      return send(res, 200, active ? { active: true, username: o.username } : { active: false });
    }
    s.requests.push(f);
    if (s.refuseAll) return send(res, 400, { error: 'invalid_grant', error_description: 'AADSTS70000: The provided grant has been revoked.' });
    if (f.client_id !== o.clientId) return send(res, 401, { error: 'invalid_client' });
    if (f.grant_type === 'client_credentials') {
      const byCert = f.client_assertion_type === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' && assertionValid(f.client_assertion, s.tokenUrl);
      if (!byCert && f.client_secret !== o.clientSecret)
        return send(res, 401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' });
      if (f.scope !== 'https://outlook.office365.com/.default') return send(res, 400, { error: 'invalid_scope' });
    } else if (f.grant_type === 'refresh_token') {
      if (f.refresh_token !== s.refreshToken) return send(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      s.refreshToken = `rt_${randomBytes(12).toString('hex')}`;
    } else return send(res, 400, { error: 'unsupported_grant_type' });
    const token = `at_${randomBytes(16).toString('hex')}`;
    s.issued.push({ token, expiresAt: Date.now() + s.lifetimeSeconds * 1000 });
    send(res, 200, {
      token_type: 'Bearer',
      access_token: token,
      expires_in: s.lifetimeSeconds,
      ...(f.grant_type === 'refresh_token' ? { refresh_token: s.refreshToken } : {}),
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  s.tokenUrl = `http://127.0.0.1:${port}/token`;
  s.introspectionUrl = `http://127.0.0.1:${port}/introspect`;
  return s;
}
