import { ConfigError, loadConfig, type Role } from './config/config.ts';
import { createLogger } from './app/logger.ts';
import { startService } from './app/service.ts';

// `--role worker` (repeatable, or comma-separated) overrides ROLES.
function rolesFromArgs(argv: string[]): string | undefined {
  const picked: string[] = [];
  argv.forEach((a, i) => {
    if (a === '--role' && argv[i + 1]) picked.push(argv[i + 1]);
    else if (a.startsWith('--role=')) picked.push(a.slice(7));
  });
  return picked.length ? picked.join(',') : undefined;
}

async function main() {
  const env = { ...process.env };
  const roles = rolesFromArgs(process.argv.slice(2));
  if (roles) env.ROLES = roles;
  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  log.info({ roles: config.roles as Role[] }, 'starting invoice-intake');
  let service;
  try {
    service = await startService(config, log);
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('grace period over; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 5000);
    force.unref();
    await service.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
