// A real DNS server for SPF, DKIM and DMARC tests: Debian's dnsmasq on a free loopback port,
// serving only the TXT records given (no upstream, no /etc/hosts, no config file); any other
// name under their top-level domains does not exist.
import { spawn } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { freePort } from '../../testkit/ports.ts';
import { until } from '../../testkit/wait.ts';

export interface DnsServer {
  port: number;
  /** how many queries of this type for this name dnsmasq has answered (it logs each one) */
  queries(rrtype: string, name: string): number;
  stop(): Promise<void>;
}

/** TXT strings are at most 255 characters: a longer record is served as several strings, joined by readers. */
const strings = (text: string) => (text.match(/.{1,250}/g) ?? ['']).join(',');

export async function startDnsServer(txt: Record<string, string>): Promise<DnsServer> {
  const port = await freePort();
  const proc = spawn(
    'dnsmasq',
    [
      '--no-daemon',
      '--no-resolv',
      '--no-hosts',
      '--conf-file=/dev/null',
      '--pid-file=',
      '--bind-interfaces',
      '--listen-address=127.0.0.1',
      `--port=${port}`,
      '--log-queries',
      '--log-facility=-',
      // names under the records' top-level domains that have no record: NXDOMAIN, as a real zone answers (not REFUSED)
      ...[...new Set(Object.keys(txt).map((name) => name.split('.').pop()))].map((tld) => `--local=/${tld}/`),
      ...Object.entries(txt).map(([name, value]) => `--txt-record=${name},${strings(value)}`),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  const [first] = Object.keys(txt);
  await until(
    async () => {
      if (proc.exitCode !== null) throw new Error(`dnsmasq exited: ${stderr}`);
      return resolver.resolveTxt(first).then(
        () => true,
        () => false,
      );
    },
    10_000,
    'dnsmasq to answer',
  );
  return {
    port,
    queries: (rrtype, name) => stderr.split('\n').filter((line) => line.includes(`query[${rrtype}] ${name} from`)).length,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
