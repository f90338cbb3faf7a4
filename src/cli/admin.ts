// `npm run admin -- <command>`: accounts and keys through the admin API of a running service.
// Keys are printed once, here, and never again: the service stores only their hashes.
import fs from 'node:fs';
import { adminTokenFile } from '../platform/admin-token.ts';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import { AdminApiError, AdminClient, AdminUnreachableError, readCa, type NewAccount, type SshKeyView } from './admin-client.ts';
import type { AccountView } from '../domain/models.ts';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const USAGE = `Usage: npm run admin -- <command> [--json]

Commands:
  create-account <name>          Create an account; prints its live and test API keys (once)
  show-account <id>              Show an account: FTP user name and import addresses (no keys)
  rotate-key <id> live|test      Replace a key; the old key stops working at once
  add-ssh-key <id> live|test <public key or .pub file>
                                 Register an SSH public key for SFTP logins in that mode
  list-ssh-keys <id>             The account's SSH keys
  remove-ssh-key <id> <keyId>    Remove an SSH key; its SFTP sessions end
  invite <id> <email>            Invite a person to the dashboard (a new invite resets a password);
                                 prints the one-time link (24 h), also e-mailed when SMTP_URL is set
  list-accounts [search] [--from <id>]
                                 Accounts, newest first (search: name, id or FTP user name)
  disable-account <id>           Refuse the account's keys, FTP/SFTP logins and mail at once
  enable-account <id>            Let a disabled account in again
  failed-imports [--from <id>]   Files that failed, across every account (refused ones included)
  trail <id> [--from <id>]       Who changed what in the account (keys, people, files by hand), newest first
  move-documents --to database|directory|s3 [--from <store>] [--restart]
                                 Copy every stored file from the store in use (DOCUMENT_STORE, or --from)
                                 to another, verifying each by its SHA-256; resumes a pass cut short
                                 (--restart: from the beginning). Needs DATABASE_URL and the target's
                                 settings (DOCUMENT_STORE_DIR, S3_*). See docs/operations.md.

Settings (environment):
  ADMIN_URL     the service's address (default http://127.0.0.1:$PORT, PORT default 8080)
  ADMIN_TOKEN   the admin token (default: read from $DATA_DIR/admin-token, DATA_DIR default ./data)`;

class UsageError extends Error {}

function adminToken(config: Config): string {
  if (config.adminToken === 'disabled') throw new UsageError('ADMIN_TOKEN is "disabled": the admin API is off.');
  if (config.adminToken) return config.adminToken;
  const file = adminTokenFile(config.dataDir);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    throw new UsageError(`No admin token: set ADMIN_TOKEN, or run this where ${file} (written by the service at its first start) is readable.`);
  }
}

function adminUrl(config: Config): string {
  if (config.adminUrl) return config.adminUrl;
  return `${config.tlsCert ? 'https' : 'http'}://${config.tlsCert ? 'localhost' : '127.0.0.1'}:${config.port}`;
}

function accountLines(a: AccountView): string[] {
  return [
    `  Account id:          ${a.id}`,
    `  Name:                ${a.name}`,
    `  FTP user name:       ${a.ftpUsername}   (password: the live key for live mode, the test key for test mode)`,
    `  Import address live: ${a.importAddresses.live}`,
    `  Import address test: ${a.importAddresses.test}`,
    ...(a.sftpHostKeys ?? []).map((k) => `  SFTP host key:       ${k.fingerprint} (${k.type})   (user and password as FTP, or a registered SSH key)`),
  ];
}

const sshKeyLine = (k: SshKeyView) => `  ${k.id}  ${k.mode.padEnd(4)}  ${k.type}  ${k.fingerprint}  ${k.comment}`;

function modeArg(command: string, mode: string): 'live' | 'test' {
  if (mode !== 'live' && mode !== 'test') throw new UsageError(`${command} takes live or test, not "${mode}".`);
  return mode;
}

function printNewAccount(a: NewAccount, out: (s: string) => void): void {
  out(
    [
      '',
      `Account "${a.name}" created.`,
      '',
      `  Live API key:        ${a.liveKey}`,
      `  Test API key:        ${a.testKey}`,
      '',
      ...accountLines(a),
      '',
      'These keys are shown only now; the service keeps no copy. Store them safely.',
      'Use them as:  Authorization: Bearer <key>',
      `A lost key can be replaced:  npm run admin -- rotate-key ${a.id} live|test`,
      '',
    ].join('\n'),
  );
}

/** Aligned columns for people, with how to get the next page. */
function table(rows: string[][], head: string[], next: string | null, command: string): string {
  if (rows.length === 0) return 'Nothing found.';
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const lines = all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
  if (next) lines.push('', `More: npm run admin -- ${command} --from ${next}`);
  return lines.join('\n');
}

function runMoveDocuments(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const entry = fileURLToPath(new URL('../app/move-documents.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, entry, ...args], { env, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

async function runAdmin(argv: string[], env: Record<string, string | undefined>, out: (s: string) => void): Promise<number> {
  // the one command that works on the database and the stores themselves, not through the admin API:
  // composed in app/ (it builds repositories), run as a process of its own with this one's flags
  if (argv[0] === 'move-documents') return runMoveDocuments(argv.slice(1), env);
  const json = argv.includes('--json');
  // --from <id> pages on (the previous page's last line says which)
  const fromAt = argv.indexOf('--from');
  const from = fromAt >= 0 ? argv[fromAt + 1] : undefined;
  const args = argv.filter((a, i) => a !== '--json' && i !== fromAt && (fromAt < 0 || i !== fromAt + 1));
  const [command, ...rest] = args;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig(env, {}, { serving: false }); // it serves nothing: PUBLIC_URL is the service's business
  const client = new AdminClient(adminUrl(config), adminToken(config), readCa(config.tlsCert));
  const need = (n: number, what: string) => {
    if (rest.length !== n || rest.some((r) => !r.trim())) throw new UsageError(`${command} needs ${what}.\n\n${USAGE}`);
  };
  switch (command) {
    case 'create-account': {
      need(1, 'a name, e.g. create-account "Acme BV"');
      const a = await client.createAccount(rest[0]);
      if (json) out(JSON.stringify(a, null, 2));
      else printNewAccount(a, out);
      return 0;
    }
    case 'show-account': {
      need(1, 'an account id');
      const a = await client.showAccount(rest[0]);
      out(json ? JSON.stringify(a, null, 2) : ['', ...accountLines(a), `  Created:             ${a.createdAt}`, ''].join('\n'));
      return 0;
    }
    case 'rotate-key': {
      need(2, 'an account id and live or test, e.g. rotate-key acc_... live');
      const mode = modeArg(command, rest[1]);
      const key = await client.rotateKey(rest[0], mode);
      if (json) out(JSON.stringify({ key }, null, 2));
      else
        out(
          [
            '',
            `New ${mode} API key for ${rest[0]}:`,
            '',
            `  ${key}`,
            '',
            `The old ${mode} key stopped working now. This key is shown only once; store it safely.`,
            '',
          ].join('\n'),
        );
      return 0;
    }
    case 'add-ssh-key': {
      need(3, 'an account id, live or test, and a public key (or the path of a .pub file)');
      const text = fs.existsSync(rest[2]) ? fs.readFileSync(rest[2], 'utf8') : rest[2];
      const k = await client.addSshKey(rest[0], modeArg(command, rest[1]), text);
      out(json ? JSON.stringify(k, null, 2) : ['', `SSH key registered for ${k.mode} mode:`, sshKeyLine(k), ''].join('\n'));
      return 0;
    }
    case 'list-ssh-keys': {
      need(1, 'an account id');
      const keys = await client.listSshKeys(rest[0]);
      out(json ? JSON.stringify(keys, null, 2) : keys.length ? keys.map(sshKeyLine).join('\n') : 'No SSH keys registered.');
      return 0;
    }
    case 'remove-ssh-key': {
      need(2, 'an account id and a key id (ssk_...)');
      await client.removeSshKey(rest[0], rest[1]);
      out(json ? '{}' : `SSH key ${rest[1]} removed.`);
      return 0;
    }
    case 'invite': {
      need(2, 'an account id and an e-mail address, e.g. invite acc_... ann@example.com');
      const u = await client.invite(rest[0], rest[1]);
      if (json) out(JSON.stringify(u, null, 2));
      else
        out(
          [
            '',
            `Invited ${u.email} (${u.id}) to the dashboard of ${rest[0]}.`,
            '',
            `  ${u.inviteUrl}`,
            '',
            'The link sets a password; it works once, for 24 hours.',
            '',
          ].join('\n'),
        );
      return 0;
    }
    case 'list-accounts': {
      if (rest.length > 1) throw new UsageError(`list-accounts takes at most one search text.\n\n${USAGE}`);
      const page = await client.listAccounts({ search: rest[0], from });
      if (json) out(JSON.stringify(page, null, 2));
      else
        out(
          table(
            page.items.map((a) => [a.id, a.disabled ? 'disabled' : 'active', a.ftpUsername, a.createdAt.slice(0, 10), a.name]),
            ['ID', 'STATE', 'FTP USER', 'CREATED', 'NAME'],
            page.next,
            command,
          ),
        );
      return 0;
    }
    case 'disable-account':
    case 'enable-account': {
      need(1, 'an account id');
      const a = await client.setDisabled(rest[0], command === 'disable-account');
      out(
        json
          ? JSON.stringify(a, null, 2)
          : a.disabled
            ? `Account ${a.id} ("${a.name}") is disabled: its API keys get 401, FTP/SFTP logins 530, and mail to its addresses is recorded as failed.`
            : `Account ${a.id} ("${a.name}") is enabled again.`,
      );
      return 0;
    }
    case 'failed-imports': {
      if (rest.length) throw new UsageError(`failed-imports takes no argument.\n\n${USAGE}`);
      const page = await client.listImports({ status: 'failed', from });
      if (json) out(JSON.stringify(page, null, 2));
      else
        out(
          table(
            page.items.map((r) => [r.receivedAt.slice(0, 19).replace('T', ' '), r.id, r.account, r.mode, r.channel, r.filename, r.reason ?? '']),
            ['RECEIVED', 'ID', 'ACCOUNT', 'MODE', 'CHANNEL', 'FILE', 'REASON'],
            page.next,
            command,
          ),
        );
      return 0;
    }
    case 'trail': {
      need(1, 'an account id');
      const page = await client.trail(rest[0], { from });
      if (json) out(JSON.stringify(page, null, 2));
      else
        out(
          table(
            page.items.map((e) => [
              e.at.slice(0, 19).replace('T', ' '),
              e.mode ?? 'account',
              e.action,
              e.target ?? '',
              `${e.actor.kind}:${e.actor.label}`,
              e.address ?? '',
            ]),
            ['AT', 'MODE', 'ACTION', 'TARGET', 'BY', 'FROM'],
            page.next,
            `${command} ${rest[0]}`,
          ),
        );
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

async function main(): Promise<void> {
  try {
    process.exitCode = await runAdmin(process.argv.slice(2), process.env, (s) => console.log(s));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(e.message);
      process.exitCode = 2;
    } else if (e instanceof ConfigError) {
      console.error(e.message);
      process.exitCode = 2;
    } else if (e instanceof AdminApiError) {
      const hint = e.status === 401 ? " (the admin token was refused: use the service's ADMIN_TOKEN or its DATA_DIR/admin-token)" : '';
      console.error(`Error ${e.status}: ${e.detail}${hint}`);
      process.exitCode = 1;
    } else if (e instanceof AdminUnreachableError) {
      console.error(`${e.message}\nIs the service running (npm start)? Set ADMIN_URL if it listens elsewhere.`);
      process.exitCode = 1;
    } else {
      throw e;
    }
  }
}

void main();
