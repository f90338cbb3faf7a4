// `npm run docs:config`: writes docs/configuration.md and config/example.env from the config schema.
import fs from 'node:fs';
import path from 'node:path';
import { configurationMarkdown, exampleEnv } from '../config/config-docs.ts';

const root = path.resolve(import.meta.dirname, '../..');
fs.writeFileSync(path.join(root, 'docs/configuration.md'), configurationMarkdown());
fs.writeFileSync(path.join(root, 'config/example.env'), exampleEnv());
console.log('wrote docs/configuration.md and config/example.env');
