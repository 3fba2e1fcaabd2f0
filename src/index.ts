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
export { Rng, rngFor } from './util/rng.ts';
export { reproduce, REPRODUCE_DEFAULTS, ARTICLES_PER_SCALE } from './experiments/reproduce.ts';
export { runLargeScale, meanOverRepeats, PAPER_DATASET_LEVEL, type LargeScaleConfig } from './experiments/large-scale.ts';
export type { CellResult, MeanRow } from './report/results-format.ts';
export { sampleQueries, samplePool, citedBy, fieldCited, citationQrels } from './sampling/pools.ts';
export { evaluate, evaluateRankedLists, parseMeasure } from './eval/index.ts';
export { Bm25Retriever } from './retrieval/bm25/retriever.ts';
export { buildIndex } from './retrieval/bm25/index.ts';
export { loadIndex, saveIndex } from './retrieval/bm25/index-format.ts';
export { datasetLevelTable, paperTable1, loadPaperNumbers } from './report/tables.ts';
export type { Retriever, SearchRequest, RankedLists } from './retrieval/retriever.ts';
