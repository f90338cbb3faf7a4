// `npm run admin -- <command>`: accounts and keys through the admin API of a running service.
// Keys are printed once, here, and never again: the service stores only their hashes.
import fs from 'node:fs';
import { adminTokenFile } from '../app/admin-token.ts';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import { AdminApiError, AdminClient, AdminUnreachableError, readCa, type AccountView, type NewAccount } from './admin-client.ts';

const USAGE = `Usage: npm run admin -- <command> [--json]

Commands:
  create-account <name>          Create an account; prints its live and test API keys (once)
  show-account <id>              Show an account: FTP user name and import addresses (no keys)
  rotate-key <id> live|test      Replace a key; the old key stops working at once

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
  ];
}

function printNewAccount(a: NewAccount, out: (s: string) => void): void {
  out(['', `Account "${a.name}" created.`, '', `  Live API key:        ${a.liveKey}`, `  Test API key:        ${a.testKey}`, '', ...accountLines(a), '',
    'These keys are shown only now; the service keeps no copy. Store them safely.',
    'Use them as:  Authorization: Bearer <key>',
    `A lost key can be replaced:  npm run admin -- rotate-key ${a.id} live|test`, ''].join('\n'));
}

async function runAdmin(argv: string[], env: Record<string, string | undefined>, out: (s: string) => void): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const [command, ...rest] = args;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig(env);
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
      const mode = rest[1];
      if (mode !== 'live' && mode !== 'test') throw new UsageError(`rotate-key takes live or test, not "${mode}".`);
      const key = await client.rotateKey(rest[0], mode);
      if (json) out(JSON.stringify({ key }, null, 2));
      else out(['', `New ${mode} API key for ${rest[0]}:`, '', `  ${key}`, '', `The old ${mode} key stopped working now. This key is shown only once; store it safely.`, ''].join('\n'));
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
      const hint = e.status === 401 ? ' (the admin token was refused: use the service\'s ADMIN_TOKEN or its DATA_DIR/admin-token)' : '';
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
