// TypeBox's Type, for every schema of the API: from the config's module, which the build bundles
// with the library (src/config/typebox.ts), so the service loads TypeBox once, as one file.
export { Type } from '../../config/typebox.ts';
export type { TObject, TSchema } from 'typebox';
