/**
 * citebench's public API, for notebooks and for programs that use citebench as a library.
 * Notebooks (tslab) load it with:  const cb = require('tsx/cjs/api').require('../src/index.ts', __dirname + '/')
 */
export * from './corpus/fields.ts';
export type { Article, ArticleText, TextSource } from './corpus/article.ts';
export { InMemoryTexts } from './corpus/article.ts';
export { listShards, readArticles } from './corpus/s2orc-reader.ts';
export { ValidationReport } from './corpus/validation.ts';
export { PAPER_PREFILTER, formatPrefilterReport, type PrefilterConfig } from './corpus/prefilter.ts';
export { buildCorpusStore } from './corpus/store-build.ts';
export { CorpusStore } from './corpus/store.ts';
export { synthesize, SYNTH_DEFAULTS } from './corpus/synth.ts';
export { describeStore } from './corpus/stats.ts';
export { Rng, rngFor } from './sampling/rng.ts';
export { reproduce, REPRODUCE_DEFAULTS } from './experiments/reproduce.ts';
export type { Retriever, SearchRequest, RankedLists } from './retrieval/retriever.ts';
