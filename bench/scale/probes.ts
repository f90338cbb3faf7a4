// bench:scale's read probes: API reads, list pages (first and deep by cursor), the imports lists,
// and the dashboard's pages and search, each timed over sequential requests (one at a time, so
// the figure is the answer's own time, not a queue's), as a median in ms.
import os from 'node:os';
import { pct } from '../bench-kit.ts';
import { httpClient, type HttpReply } from '../../testkit/http-client.ts';

export interface Figure {
  name: string;
  /** the cost: ms (lower is better) or bytes per file */
  value: number;
  unit: string;
  /** load average (1 min) when it was measured */
  load: number;
  note?: string;
}

const load1 = () => os.loadavg()[0];

/** Median ms of `rounds` sequential calls of fn(i) after `warm` unmeasured ones; any answer but 200 throws. */
async function timed(name: string, rounds: number, fn: (i: number) => Promise<HttpReply>, warm = 3): Promise<Figure> {
  const times: number[] = [];
  for (let i = 0; i < warm + rounds; i++) {
    const t0 = performance.now();
    const res = await fn(i);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${String(res.raw).slice(0, 300)}`);
    if (i >= warm) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { name, value: pct(times, 50), unit: 'ms', load: load1(), note: `p90 ${pct(times, 90).toFixed(1)}` };
}

export interface ReadTarget {
  base: string;
  key: string;
  level: number;
  /** ids of filled rows spread over the year, for GET by id */
  id: (prefix: 'inv' | 'imp', i: number) => string;
  dashboard: { email: string; password: string };
}

/** A person's dashboard over HTTP without a browser: the session cookie it is given, the CSRF token of the sign-in form. */
async function dashboardSession(base: string, who: { email: string; password: string }) {
  const request = httpClient(base);
  const cookies = new Map<string, string>();
  const send = async (method: string, p: string, form?: Record<string, string>) => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(method, p, { form, headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
  const form = await send('GET', '/dashboard/sign-in');
  const csrf = /name="_csrf" value="([^"]+)"|data-csrf="([^"]+)"/.exec(String(form.body));
  const signIn = await send('POST', '/dashboard/sign-in', { _csrf: csrf?.[1] ?? csrf?.[2] ?? '', email: who.email, password: who.password });
  if (signIn.status !== 303) throw new Error(`dashboard sign-in: ${signIn.status} ${String(signIn.raw).slice(0, 200)}`);
  return (p: string) => send('GET', p);
}

/** Row i of the level's rows spread over the whole range (1..level), pseudo-randomly. */
const spread = (level: number, i: number) => 1 + ((i * 7919 + 13) % level);

export async function readProbes(t: ReadTarget, rounds: number): Promise<Figure[]> {
  const request = httpClient(t.base);
  const api = (p: string) => request('GET', p, { key: t.key });
  const deep = (prefix: 'inv' | 'imp') => t.id(prefix, Math.ceil(t.level / 2));
  const out: Figure[] = [];
  out.push(await timed('GET /v2/invoices/{id}', rounds * 4, (i) => api(`/v2/invoices/${t.id('inv', spread(t.level, i))}`)));
  out.push(await timed('GET /v2/imports/{id}', rounds * 2, (i) => api(`/v2/imports/${t.id('imp', spread(t.level, i))}`)));
  out.push(await timed('GET /v2/invoices (first page)', rounds, () => api('/v2/invoices?limit=50')));
  out.push(await timed('GET /v2/invoices (deep page by cursor)', rounds, () => api(`/v2/invoices?limit=50&from=${deep('inv')}`)));
  out.push(await timed('GET /v2/invoices?status=open', rounds, () => api('/v2/invoices?limit=50&status=open')));
  out.push(await timed('GET /v2/imports (first page)', rounds, () => api('/v2/imports?limit=50')));
  out.push(await timed('GET /v2/imports (deep page by cursor)', rounds, () => api(`/v2/imports?limit=50&from=${deep('imp')}`)));
  out.push(await timed('GET /v2/imports?status=failed', rounds, () => api('/v2/imports?limit=50&status=failed')));
  out.push(
    await timed('GET /v2/imports?status=failed (deep)', rounds, () =>
      api(`/v2/imports?limit=50&status=failed&from=${t.id('imp', Math.ceil(t.level / 40) * 20)}`),
    ),
  );

  const page = await dashboardSession(t.base, t.dashboard);
  await page('/dashboard');
  out.push(await timed('dashboard overview', rounds, () => page('/dashboard')));
  out.push(await timed('dashboard files', rounds, () => page('/dashboard/files')));
  out.push(await timed('dashboard files, failed, 7 days', rounds, () => page('/dashboard/files?status=failed&period=7d')));
  out.push(await timed('dashboard files, deep page', rounds, () => page(`/dashboard/files?after=${deep('imp')}`)));
  out.push(await timed('dashboard search (a number)', rounds, (i) => page(`/dashboard/files?q=F-${spread(t.level, i)}`)));
  out.push(await timed('dashboard search (no match)', rounds, (i) => page(`/dashboard/files?q=nothing-${i}`)));
  out.push(await timed('dashboard file', rounds, (i) => page(`/dashboard/files/${t.id('imp', spread(t.level, i))}`)));
  out.push(await timed('dashboard invoices without a document', rounds, () => page('/dashboard/invoices')));
  out.push(await timed('dashboard invoice', rounds, (i) => page(`/dashboard/invoices/${t.id('inv', spread(t.level, i))}`)));
  out.push(await timed('dashboard trail', rounds, () => page('/dashboard/trail')));
  return out;
}
