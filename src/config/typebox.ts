// TypeBox for the whole service: the config schema and every schema of the API take it from here.
// `npm run build` bundles this one module with the library (esbuild, over tsc's output of it):
// TypeBox is 373 files, which Node took about a third of a second of every start to load one by
// one; as one file they load in about 20 ms. The sources (tsx, the tests) import the library as it is.
export { Type } from 'typebox';
export { Compile } from 'typebox/compile';
