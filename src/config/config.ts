// The service's configuration: read once from the environment at start-up and checked against the
// schema (schema.ts, one group per feature), then by the rules between settings (config-rules.ts).
// Every problem is reported together, with the variable's name, before anything starts.
import { Compile } from './typebox.ts';
import { configRuleProblems } from './config-rules.ts';
import { PublicLinks, publicUrlProblems } from './public-url.ts';
import { configSchema, settingEntries, type FlatSettings } from './schema.ts';

export { ALL_ROLES, type Role } from './settings/general.ts';

/**
 * What the code reads: the schema's settings as one flat object (the groups are the schema's and the
 * docs'; the keys are unique across groups), with HOST and REDIS_URL resolved and the link base.
 */
export type Config = Omit<FlatSettings, 'host' | 'redisUrl'> & { host: string; redisUrl: string; redisUrlIsDefault: boolean; links: PublicLinks };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/** The environment's text per group and key, each setting under the first of its names that is set ('' counts as unset). */
function environmentValues(env: Record<string, string | undefined>) {
  const raw: Record<string, Record<string, string>> = {};
  const readFrom = new Map<string, string>(); // "/group/key" -> the variable it came from (an alias's problem names the alias)
  for (const { group, key, meta } of settingEntries) {
    raw[group] ??= {};
    const name = [meta.env, ...(meta.aliases ?? [])].find((n) => env[n] !== undefined && env[n] !== '');
    if (name !== undefined) raw[group][key] = env[name]!;
    readFrom.set(`/${group}/${key}`, name ?? meta.env);
  }
  return { raw, readFrom };
}

let validator: ReturnType<typeof Compile<typeof configSchema>> | undefined; // compiled at the first load, once per process

/**
 * Reads and checks every setting; throws one ConfigError listing every problem. `serving: false`: a tool (the admin CLI) that serves nothing.
 * The compiled schema fills the defaults and checks (0.1-0.3 ms; its Errors only when the check fails); each setting's text is then
 * decoded by its kind here, since the validator's Decode walks the schema again by the generic Value pipeline (4-15 ms a load).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}, { serving = true } = {}): Config {
  const { raw, readFrom } = environmentValues(env);
  validator ??= Compile(configSchema);
  validator.Default(raw);
  const problems = validator.Check(raw) ? [] : validator.Errors(raw).map((e) => `${readFrom.get(e.instancePath) ?? e.instancePath} ${e.message}`);
  if (problems.length) throw new ConfigError(problems); // the rules between settings need every one readable
  const flat: Record<string, unknown> = {}; // every key present, as before (undefined when unset)
  for (const { group, key, decode } of settingEntries) flat[key] = raw[group][key] === undefined ? undefined : decode(raw[group][key]);
  const config = Object.assign(flat, overrides) as Config;
  config.host ||= config.tlsCert ? '0.0.0.0' : '127.0.0.1';
  if ((config.redisUrlIsDefault = !config.redisUrl)) config.redisUrl = config.redisDefaultUrl; // REDIS_URL unset
  problems.push(...configRuleProblems(config));
  if (serving) problems.push(...publicUrlProblems(config));
  config.links = new PublicLinks(config); // PUBLIC_URL, else the API's own loopback address
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** Every setting's environment variable (config/example.env lists each one); aliases not included. */
export const settingEnvNames = settingEntries.map((e) => e.meta.env);

/** Names of the settings that hold secrets (marked `secret`): a config problem never echoes their values. */
export const secretEnvNames = settingEntries.filter((e) => e.meta.secret).map((e) => e.meta.env);
