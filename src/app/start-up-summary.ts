// What a person starting the service reads first: where each part listens, where the admin
// token is, and what to do next. One log line: its message is the text, its `startUp` field the
// same facts for machines (left out of the terminal's lines, which show the text).
import type { Config } from '../config/config.ts';
import { adminTokenFile } from '../platform/admin-token.ts';
import { describeImapUrl, parseImapUrl } from '../channels/mail/imap-url.ts';
import type { RunningService } from './start-service.ts';
import { isLoopback } from '../config/public-url.ts';
import type { PrivateRedis } from './private-redis.ts';

export interface StartUpSummary {
  text: string;
  fields: Record<string, string>;
}

export function startUpSummary(config: Config, svc: RunningService, privateRedis?: PrivateRedis): StartUpSummary {
  const roles = new Set(config.roles);
  const fields: Record<string, string> = {};
  const rows: [string, string][] = [];
  const add = (key: string, label: string, value: string, note = '') => {
    fields[key] = value;
    rows.push([label, note ? `${value}   (${note})` : value]);
  };
  const at = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (svc.apiUrl) {
    // the links people follow are PUBLIC_URL's (the same as the ones the service mails); where it listens is said beside them
    const base = config.links.base;
    const listens = config.links.configured ? `listening on ${svc.apiUrl}, ` : '';
    add(
      'api',
      'API',
      `${base}/v2`,
      listens + (config.tlsCert ? 'HTTPS' : `plain HTTP${isLoopback(config.host) ? ', this machine only' : ': put a TLS-terminating proxy in front'}`),
    );
    add('docs', 'API docs', `${base}/docs`);
    add('dashboard', 'Dashboard', `${base}/dashboard`, 'account holders sign in after an invite');
    const token = config.adminToken === 'disabled' ? 'off (ADMIN_TOKEN=disabled)' : config.adminToken ? 'ADMIN_TOKEN, as set' : adminTokenFile(config.dataDir);
    add('adminToken', 'Admin token', token, config.adminToken === 'disabled' ? '' : `admin API ${base}/admin, queues ${base}/admin/queues`);
  } else if (svc.httpUrl) {
    add('health', 'Health', `${svc.httpUrl}/readyz`);
  }
  if (svc.ftpPort !== undefined) {
    const tls = config.tlsCert ? 'FTPS with TLS_CERT' : config.ftpAllowPlain ? 'plain FTP allowed' : 'FTPS with a self-signed certificate';
    add('ftp', 'FTP', at(config.ftpHost, svc.ftpPort), tls);
  }
  if (svc.sftpPort !== undefined) add('sftp', 'SFTP', at(config.sftpHost, svc.sftpPort));
  if (svc.mail && config.imapUrl) add('mail', 'E-mail', describeImapUrl(parseImapUrl(config.imapUrl)), `files mailed to ${config.importAddress}`);
  else if (roles.has('mail'))
    add(
      'mail',
      'E-mail',
      'IMAP off',
      svc.smtpPort !== undefined ? 'mail comes in by SMTP below; set IMAP_URL to read a mailbox too' : 'set IMAP_URL to read a mailbox',
    );
  if (svc.smtpPort !== undefined && config.smtpListen !== 'off') {
    add('smtp', 'SMTP', at(config.smtpListen.host, svc.smtpPort), config.tlsCert ? 'STARTTLS with TLS_CERT' : 'STARTTLS with a self-signed certificate');
    add(
      'smtpExample',
      'First mail',
      `swaks --server ${at(config.smtpListen.host, svc.smtpPort)} --to <an account's import address> --attach @<invoice number>.pdf`,
      'GET /v2/account shows the address',
    );
  } else if (roles.has('smtp')) add('smtp', 'SMTP', 'off', 'SMTP_LISTEN=off');
  if (roles.has('worker')) add('worker', 'Workers', 'matching imported files to invoices');
  add('database', 'Database', config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`);
  if (privateRedis)
    add(
      'redis',
      'Redis',
      `private redis-server on ${privateRedis.socket}`,
      `started and stopped with the service: REDIS_URL unset and none on ${config.redisDefaultUrl}`,
    );
  else
    add(
      'redis',
      'Redis',
      config.redisUrlIsDefault ? config.redisDefaultUrl : 'REDIS_URL, as set',
      config.redisUrlIsDefault ? 'REDIS_URL unset: the one on the default address' : '',
    );

  const next =
    svc.apiUrl && config.adminToken !== 'disabled'
      ? 'Next: create an account with `npm run admin -- create-account "Your company"`; it prints the account\'s API keys once. Then read the API docs.'
      : 'Next: start the api role somewhere (ROLES=api) to create accounts and reach the docs.';
  const width = Math.max(...rows.map(([l]) => l.length));
  const text = [`invoice-intake is running (roles: ${config.roles.join(', ')})`, ...rows.map(([l, v]) => `  ${l.padEnd(width)}  ${v}`), next].join('\n');
  return { text, fields };
}
