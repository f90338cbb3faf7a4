// The dashboard as a client without a browser sees it over real HTTP: it keeps the cookies it is
// given and sends each form with the CSRF token of the last page it read, and it may send any
// header (a forged Host). For what a browser cannot do; the pages themselves are tested in Chromium.
import { httpClient, type HttpReply } from '../../testkit/http-client.ts';

export interface FormClient {
  get(path: string): Promise<HttpReply>;
  /** posts the form with the CSRF token of the last page read */
  post(path: string, form?: Record<string, string>): Promise<HttpReply>;
  /** signs in (password only); a 303 to /dashboard is success */
  signIn(who: { email: string; password: string }): Promise<HttpReply>;
  cookies: Map<string, string>;
}

export function formClient(base: string, headers: Record<string, string> = {}): FormClient {
  const request = httpClient(base);
  const cookies = new Map<string, string>();
  let csrf = '';
  const send = async (method: string, path: string, form?: Record<string, string>) => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(method, path, { form, headers: { accept: 'text/html', ...headers, ...(cookie ? { cookie } : {}) } });
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1);
      if (value && !/expires=Thu, 01 Jan 1970/i.test(line)) cookies.set(pair.slice(0, at), value);
      else cookies.delete(pair.slice(0, at));
    }
    const token = typeof res.body === 'string' ? /data-csrf="([^"]+)"|name="_csrf" value="([^"]+)"/.exec(res.body) : null;
    if (token) csrf = token[1] ?? token[2];
    return res;
  };
  const client: FormClient = {
    cookies,
    get: (path) => send('GET', path),
    post: (path, form = {}) => send('POST', path, { _csrf: csrf, ...form }),
    async signIn(who) {
      await client.get('/dashboard/sign-in');
      return client.post('/dashboard/sign-in', { email: who.email, password: who.password });
    },
  };
  return client;
}
