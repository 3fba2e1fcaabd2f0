/**
 * Every CLI command, loaded lazily so `citebench --help` stays instant and heavy runtimes (onnxruntime)
 * load only for the commands that need them. A command module exports `usage` and `run(args)`.
 * Multi-word names ("bm25 index") are matched on the leading words of argv.
 */
export interface CommandModule {
  usage: string;
  run(args: string[]): Promise<number | void>;
}

export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<CommandModule>;
}

export const commands: CommandEntry[] = [
  { name: 'run', summary: 'run a configuration: every protocol × model × pool × repeat, resumable, into one results folder', load: () => import('./commands/run.ts') },
  { name: 'reproduce', summary: 'the paper\'s evaluation at 1/50 of its scale on a synthetic corpus (run configs/default.yaml), then its report', load: () => import('./commands/reproduce.ts') },
  { name: 'report', summary: 'HTML + PDF report of a results folder: Tables 1–8 beside the paper, charts, significance, drill-down', load: () => import('./commands/report.ts') },
  { name: 'export', summary: 'results as tidy tables for pandas, polars and R: Parquet or CSV, one file per table', load: () => import('./commands/export.ts') },
  { name: 'regressions', summary: 'check a config\'s numbers against the expected values in regressions/ (equality), or update them', load: () => import('./commands/regressions.ts') },
  { name: 'synth', summary: 'generate a synthetic S2ORC-shaped corpus (jsonl.gz shards)', load: () => import('./commands/synth.ts') },
  { name: 'corpus build', summary: 'read S2ORC shards, validate, prefilter, write the compact corpus store', load: () => import('./commands/corpus-build.ts') },
  { name: 'corpus info', summary: 'summarise a corpus store (sizes, years, fields, citations)', load: () => import('./commands/corpus-info.ts') },
  { name: 'sample', summary: 'sample queries, a candidate pool and qrels with the paper\'s protocol (§3)', load: () => import('./commands/sample.ts') },
  { name: 'corpus validate', summary: 'validate S2ORC shards and report problems by file, line and field', load: () => import('./commands/corpus-validate.ts') },
  { name: 'eval', summary: 'evaluate a TREC run against qrels exactly like trec_eval 9.0.8', load: () => import('./commands/eval.ts') },
  { name: 'mdcr-eval', summary: 'the MDCR benchmark evaluator: per-field map, ndcg, recall_5 and their AVG', load: () => import('./commands/mdcr-eval.ts') },
  { name: 'mdcr build', summary: 'build an MDCR benchmark (§4.1) from a corpus store: official mdcr_{val,test} files', load: () => import('./commands/mdcr-build.ts') },
  { name: 'mdcr score', summary: 'score every MDCR query-candidate pair with BM25 or a dense model: official scores file', load: () => import('./commands/mdcr-score.ts') },
  { name: 'mdcr tables', summary: 'markdown Tables 3 and 4 (per field, per candidate type) from MDCR scores files', load: () => import('./commands/mdcr-tables.ts') },
  { name: 'bm25 index', summary: 'build the Lucene-exact BM25 index of a corpus store (title + abstract)', load: () => import('./commands/bm25-index.ts') },
  { name: 'bm25 search', summary: 'BM25 top-k for query articles over the corpus or a pool; writes a TREC run', load: () => import('./commands/bm25-search.ts') },
  { name: 'bm25 tune', summary: 'grid search of BM25 k1 and b on a validation split (eval module measure)', load: () => import('./commands/bm25-tune.ts') },
  { name: 'encode', summary: 'encode corpus articles with a transformer encoder into a resumable embedding store', load: () => import('./commands/encode.ts') },
  { name: 'embeddings import', summary: 'put vectors computed elsewhere (SciRepEval JSONL, .npy, safetensors) into an embedding store', load: () => import('./commands/embeddings-import.ts') },
  { name: 'embeddings export', summary: 'write an embedding store as .npy (float32) + paper ids, for NumPy', load: () => import('./commands/embeddings-export.ts') },
  { name: 'fuse', summary: 'fuse TREC runs as ranx.fuse does (rrf, sum, mnz, wsum, …; min-max, zmuv, borda, … normalisation)', load: () => import('./commands/fuse.ts') },
  { name: 'merge-runs', summary: 'join the TREC runs of query shards (--shard I/N) into the unsharded run, byte for byte', load: () => import('./commands/merge-runs.ts') },
  { name: 'rerank', summary: 're-score each query\'s top K of a TREC run with a reranker (cross-encoder or LLM checkpoint); writes a TREC run', load: () => import('./commands/rerank.ts') },
  { name: 'dense search', summary: 'dense top-k (exact or HNSW) for query articles over a pool; writes a TREC run', load: () => import('./commands/dense-search.ts') },
  { name: 'slurm', summary: 'write (and submit) SLURM array jobs for a configuration: prepare, encode shards, cells, assemble', load: () => import('./commands/slurm.ts') },
];
