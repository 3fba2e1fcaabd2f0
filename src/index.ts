/**
 * citebench's public API, for notebooks and for programs that use citebench as a library:
 *   import * as cb from 'citebench';
 * works in a tslab notebook (lib/citebench.cjs loads this file through tsx), in a `node --import tsx` script and
 * in TypeScript checked with this repository's tsconfig (package.json "exports"), anywhere inside the checkout.
 */
export * from './corpus/fields.ts';
export type { Article, ArticleText, TextSource } from './corpus/article.ts';
export { InMemoryTexts } from './corpus/article.ts';
export { listShards, readArticles } from './corpus/s2orc-reader.ts';
export { isS2Datasets, readS2Datasets, readCorpusInput } from './corpus/s2-datasets.ts';
export { ValidationReport } from './corpus/validation.ts';
export { PAPER_PREFILTER, formatPrefilterReport, prefilterRows, type PrefilterConfig, type PrefilterReport } from './corpus/prefilter.ts';
export { buildCorpusStore } from './corpus/store-build.ts';
export { CorpusStore } from './corpus/store.ts';
export { synthesize, SYNTH_DEFAULTS, SYNTH_PROFILES, S2ORC_RAW, type SynthProfile } from './corpus/synth.ts';
export { describeStore, degreeHistogram, type DegreeBin } from './corpus/stats.ts';
export { Rng, rngFor } from './util/rng.ts';
export { loadConfig, parseConfig, canonicalConfig, type ExperimentConfig, type ModelConfig } from './experiments/config.ts';
export { runExperiment, dryRun } from './experiments/run.ts';
export { planGroups, groupPath, type PoolGroup } from './experiments/plan.ts';
export { readResults, readCell, meanOverRepeats, firstBaseline, type ResultsIndex, type CellRecord, type CellSummary, type MeanRow, type SignificanceRecord, type SignificanceRow } from './report/results.ts';
// Significance: the tests a run stores (res.significance), and the same tests on an analyst's own per-query frame.
export { significanceFrame, significanceOf, sliceFrame, type SignificanceFrameOptions, type CellQueryValue, type ComparisonRow } from './experiments/significance-stage.ts';
export { adjustP, bootstrapInterval, compactLetters, effectSizeDz, meanInterval, randomizedTukeyHsd, tQuantile, CORRECTIONS, type Correction, type Interval } from './eval/statistics.ts';
export { storedSignificance } from './report/significance.ts';
export { experiment, type ExperimentInput, type ExperimentOutput, type ExperimentCell, type ExperimentCache, type CellModel } from './experiments/experiment.ts';
export { compareRetrievers, topicSetsOf, type CompareOptions, type Comparison } from './experiments/adhoc.ts';
export { TopicSets, mdcrTopicSet, type TopicSet, type SampledTopicSet } from './experiments/topic-sets.ts';
export { tune, type TuneInput } from './experiments/tune.ts';
export type { TuneSpec } from './experiments/kinds/types.ts';
export { kindNames, registerKind, entryOf, type KindEntry } from './experiments/kinds/index.ts';
export { renderMarkdownReport } from './report/markdown.ts';
export { sampleQueries, sampleQuerySet, samplePool, citedBy, fieldCited, citationQrels, type QueryOptions, type QuerySet } from './sampling/pools.ts';
export { loadQueryExclusion, type QueryExclusion, type ExclusionFile } from './sampling/exclusions.ts';
export { evaluate, evaluateRankedLists, parseMeasure } from './eval/index.ts';
export { Bm25Retriever } from './retrieval/bm25/retriever.ts';
export { buildIndex } from './retrieval/bm25/index.ts';
export { loadIndex, saveIndex } from './retrieval/bm25/index-format.ts';
export { paperTable1, poolLabel } from './report/tables.ts';
export { loadPaperNumbers, PAPER_NUMBERS_FILE, type PaperNumbers } from './report/paper-numbers.ts';
export type { Retriever, SearchRequest, RankedLists } from './retrieval/retriever.ts';
export { writeReport, type ReportOptions, type ReportOutcome } from './report/write-report.ts';
export { reportTableHtml, reportChartSvg, reportChart, type ChartName } from './report/notebook.ts';
export { yearChart, fieldChart, degreeChart, chartSvg, type Chart, type ChartSpec } from './report/charts.ts';
export { loadResults, ResultsFrames, show, toHtml, frameHtml, embedHtml, pdfPage, Html, aq, type Frame, type CellFilter } from './report/frames.ts';
export { exportResults, EXPORT_FORMATS, type ExportFormat, type ExportOutput } from './report/export.ts';
export { tidyTables, tidyColumns, mdcrEvaluations, TIDY_TABLE_NAMES, type TidyTable, type TidyTableName, type TidyColumn, type TidyValue } from './report/tidy.ts';
export { notebookResults, notebookCorpus, notebookConfig, smallConfig, isSmallMode, SMALL, REPO_ROOT, type NotebookOptions } from './experiments/notebook.ts';
export { NavigationRetriever, navigate, PAPER_KD, PAPER_KC } from './retrieval/navigation.ts';
export { RerankRetriever } from './retrieval/rerank.ts';
export { FusionRetriever, type FusionInput, type FusionOptions } from './retrieval/fusion/retriever.ts';
export { fuseQuery, prepareQuery, ranxOrder, FUSION_METHODS, FUSION_NORMS, type FusionMethod, type FusionNorm, type FusionParams, type FusionSpec, type QueryRuns, type RunList } from './retrieval/fusion/index.ts';
export { fuseRunFiles, type FusedRun } from './retrieval/fusion/files.ts';
export { PairScorerRetriever, rerankText, type PairScorer } from './retrieval/rerank/pair-scorer.ts';
export { loadReranker, type RerankerOptions } from './retrieval/rerank/load.ts';
export { CrossEncoderScorer } from './retrieval/rerank/cross-encoder.ts';
export { SparseProfiler, buildSparseProfiles } from './retrieval/profiler/sparse.ts';
export { DenseProfiler } from './retrieval/profiler/dense.ts';
export { citingSets, profileScopes } from './retrieval/profiler/citing.ts';
export type { Setting } from './retrieval/retriever.ts';
// Notebooks 03–05: the drill-down's worst queries, the MDCR build's counts and one query's candidates, the
// MDCR Jaccard and the Δ-vs-BM25 charts (also as res.chart('jaccard' | 'significance')).
export { worstQueries, storeLookup, findStore, type QueryRow, type WorstQueriesOptions } from './report/drilldown.ts';
export { mdcrBuildCounts, mdcrCandidates } from './report/mdcr-files.ts';
export { jaccardChart, significanceChart, OKABE_ITO } from './report/charts.ts';
export { saveFigure, figureSvg, figurePdf, FIGURE_WIDTH_IN, type FigureOptions } from './report/figures.ts';
export { tableLatex, latexText, type LatexOptions } from './report/latex.ts';
