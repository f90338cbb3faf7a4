import path from 'node:path';

/** The checkout: where `npm start`, `src/main.ts` and `dist/` are. */
export const ROOT = path.resolve(import.meta.dirname, '..');
