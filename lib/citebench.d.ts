// Types for tslab, which resolves `import … from 'citebench'` the old way (node_modules/citebench → this
// folder, package.json "types"): typed as any, because tslab type-checks and transpiles every .ts file a cell
// imports and src/ is ESM with .ts import paths, which tslab's compiler settings reject. Programs checked with
// this repository's tsconfig (NodeNext) get src/index.ts's real types through package.json "exports".
declare const citebench: any;
export = citebench;
