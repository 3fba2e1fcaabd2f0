/**
 * The results folder of `citebench run`, as files: the runner writes it, reports and notebooks read it. It lives
 * here, below experiments/, so that a renderer needs nothing but the folder.
 *
 *   config.json            the resolved configuration (canonical JSON; its hash is in results.json)
 *   results.json           index of everything a report needs (ResultsIndex); no timings, so same config +
 *                          seed ⇒ identical bytes
 *   timings.json           wall time per stage (the only file that differs between identical runs)
 *   qrels/<group>.qrels    relevance judgements of each pool group (TREC qrels, paper ids)
 *   runs/<model>/<group>.trec   each model's top-k (TREC run), re-checkable with `citebench eval` or trec_eval
 *   cells/<model>/<group>.json  CellRecord: means and per-query values of every measure
 *   mdcr/                  mdcr_{val,test}.json, mdcr_{val,test}_data.jsonl, scores/<model>.json (evaluate.py's scores
 *                          files) and cells/<model>.json (their records in the one cache: key, evaluate.py's numbers)
 *   report.md              the Markdown tables
 * <group> is dataset/4k-r1, field/Bio/r1, field-val/Bio/r1 …
 */
import type { Correction, Interval } from '../eval/statistics.ts';
import type { SliceStats } from '../eval/compare.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FieldName, FieldScheme } from '../corpus/fields.ts';
import type { MdcrFieldResult, MdcrResult } from '../eval/mdcr.ts';
import { readJsonFile } from '../util/json.ts';
import { CitebenchError } from '../util/errors.ts';
import { shortfallNote } from '../sampling/pools.ts';
import type { SearchCosts } from '../retrieval/retriever.ts';

export interface CellRecord {
  /** Hash of everything that determines the cell (experiments/experiment.ts cellIdentity: topics, pool, qrels, model fingerprint, corpus, protocol …). */
  key: string;
  /** Each input of the key, briefly (util/identity.ts keyOf): a stale cell says which changed. Absent in results.json. */
  inputs?: Record<string, string>;
  model: string;
  /** beir: a BEIR-layout task (corpus/beir.ts), named by `task`; its pool is the task's corpus. */
  protocol: 'dataset' | 'field' | 'beir';
  split: 'test' | 'val';
  field: FieldName | null;
  /** BEIR protocol: the task's name. */
  task?: string;
  poolSize: number;
  /** Present only for the inductive setting (queries and pool disjoint, candidates strictly older); absent = transductive. */
  setting?: 'inductive';
  /** Actual pool size (smaller than poolSize only for an exhausted field-cited set). */
  poolMembers: number;
  repeat: number;
  /** Queries averaged (every sampled query: an empty list counts as 0). */
  queries: number;
  /** Queries whose list came back empty (they count 0 in every mean). */
  emptyLists: number;
  /** Measure name (as configured) → mean over queries. */
  means: Record<string, number>;
  /** Measure name → per-query values, in `queryIds` order (for significance tests). */
  perQuery: Record<string, number[]>;
  queryIds: string[];
  /** Paths relative to the results folder. */
  files: { run: string; qrels: string };
}

export type CellSummary = Omit<CellRecord, 'perQuery' | 'queryIds' | 'inputs'> & { file: string };

export interface ModelEntry {
  name: string;
  /** Its model kind (bm25, dense, embeddings, navigation, profiler, rerank, …). */
  kind: string;
  /** lexical (BM25), trained, random (test weights: never a finding) or imported (vectors computed elsewhere, provenance unknown). */
  weights: 'lexical' | 'trained' | 'random' | 'imported';
  settings: Record<string, unknown>;
  /** What the report says of it beside its name, e.g. "k1 0.9, b 0.4" (absent: nothing to add). */
  summary?: string;
}

/** The words a report puts beside a model whose numbers are not findings (random weights, imported vectors), or undefined. */
export function weightsNote(w: ModelEntry['weights'] | undefined): string | undefined {
  return w === 'random' ? 'random weights' : w === 'imported' ? 'imported vectors' : undefined;
}

/** The banner sentence on models with imported vectors, or undefined (Markdown and HTML reports). */
export function importedBanner(models: ModelEntry[]): { names: string[]; text: string } | undefined {
  const names = models.filter((m) => m.weights === 'imported').map((m) => m.name);
  if (!names.length) return undefined;
  const many = names.length > 1;
  return { names, text: `${many ? 'rank' : 'ranks'} by vectors computed outside citebench and imported from a file (named with its SHA-256 under Models): ${many ? 'their' : 'its'} numbers are exact for those vectors, and findings only as far as the encoder that made them is known. A config that vouches for them says \`weights: trained\`.` };
}

/** One tuned model (experiments/tune.ts): its grid, every point's score on the validation split, and the choice. */
export interface TuningRecord {
  model: string;
  measure: string;
  /** The validation split: its topic set id (absent in older results), query count and pool size. */
  topics?: string;
  queries: number;
  poolSize: number;
  /** Each parameter's values, in grid order (BM25: k1, b; a Profiler: beta). */
  params: Record<string, number[]>;
  /** Every point with its score, the first parameter varying slowest. */
  grid: { params: Record<string, number>; score: number }[];
  /** The best point: the highest score, the first of equals. */
  chosen: Record<string, number>;
}

/** A tuning record as results.json of an older citebench kept it (BM25 only: k1 and b on each point). */
interface OldTuningRecord {
  model: string;
  measure: string;
  queries: number;
  poolSize: number;
  grid: { k1: number; b: number; score: number }[];
  chosen: { k1: number; b: number };
}

/** Read a tuning record of either shape as the current one (older results folders are read as they are). */
function tuningRecord(t: TuningRecord | OldTuningRecord): TuningRecord {
  if (!t.grid.length || 'params' in t.grid[0]) return t as TuningRecord;
  const old = t as OldTuningRecord;
  const axis = (k: 'k1' | 'b') => [...new Set(old.grid.map((g) => g[k]))];
  return {
    model: old.model, measure: old.measure, queries: old.queries, poolSize: old.poolSize, params: { k1: axis('k1'), b: axis('b') },
    grid: old.grid.map((g) => ({ params: { k1: g.k1, b: g.b }, score: g.score })), chosen: { k1: old.chosen.k1, b: old.chosen.b },
  };
}

/** A tuned model's chosen point as reports say it: `k1 0.9, b 0.4`. */
export const chosenText = (t: Pick<TuningRecord, 'chosen'>) => Object.entries(t.chosen).map(([k, v]) => `${k} ${v}`).join(', ');

/** A grid point as tables and regression rows name it: `k1=0.9 b=0.4`. */
export const paramsText = (p: Record<string, number>, sep = ' ') => Object.entries(p).map(([k, v]) => `${k}=${v}`).join(sep);

/** evaluate.py's numbers of one model on one benchmark (×100, 4 dp), as `evaluateMdcr` gives them. */
export type MdcrSummary = Pick<MdcrResult, 'avg'> & { fields: Pick<MdcrFieldResult, 'field' | 'queries' | 'values'>[] };

export interface MdcrRecord {
  /** Paths relative to the results folder. */
  files: Record<string, string>;
  queriesPerSplit: Record<string, number>;
  /** Models whose top lists gave the model-based negatives, and the Jaccard matrix that chose them. */
  chosenModels: string[];
  jaccard: { models: string[]; matrix: number[][]; average: (number | null)[] };
  notes: string[];
  /** Per model: the test split evaluated with every type, and per candidate type (Table 4). */
  results: Record<string, { all: MdcrSummary; types: Record<string, MdcrSummary> }>;
}

/** What computing a cell cost: seconds by stage ('first stage', 'fusion', 're-scoring'), pairs re-scored, queries. */
export interface CellCost extends SearchCosts {
  queries: number;
}

/**
 * timings.json beside results.json (kept apart so results stay byte-identical): seconds per stage of the last run
 * and, by cell record file, what computing each cell cost (a cell read back from the cache keeps its cost).
 */
export interface TimingsRecord {
  seconds: Record<string, number>;
  cells?: Record<string, CellCost>;
}

/** A validation split smaller than asked: its field (or the dataset level) had fewer eligible articles left. */
export interface ValidationShortfall {
  protocol: 'dataset' | 'field';
  split: 'val';
  /** The field's name (corpus/fields.ts); null at the dataset level. */
  field: string | null;
  setting: 'transductive' | 'inductive';
  requested: number;
  sampled: number;
  /** Eligible articles before the test queries and exclusion lists were taken out. */
  eligible: number;
}

/** One line per shortfall, for logs and reports. */
export function shortfallText(s: ValidationShortfall): string {
  const where = `${s.field ? `field ${s.field}` : 'dataset level'}${s.setting === 'inductive' ? ' (inductive)' : ''}`;
  return shortfallNote(where, s.sampled, s.requested, s.eligible);
}

/** The BEIR task of a run (protocols.beir): its size and files; its cells are the `protocol: 'beir'` ones. */
export interface BeirRecord {
  name: string;
  split: string;
  /** Corpus documents (the pool), judged queries, judgement lines. */
  documents: number;
  queries: number;
  judgements: number;
  /** SHA-256 of corpus.jsonl, queries.jsonl and qrels/<split>.tsv. */
  sha256: { corpus: string; queries: string; qrels: string };
  /** Models of the run that were not run on the task, and why. */
  notRun: { name: string; reason: string }[];
}

/** Where a corpus store came from and which fields label its articles (the store's meta.source). */
export interface CorpusSourceRecord {
  /** The input's form: v2020 (S2ORC), bulk (Semantic Scholar Datasets), openalex, records. */
  format: string;
  /** What the input is, in words (e.g. 'OpenAlex works'). */
  name: string;
  /** OpenAlex: the snapshot's date. */
  release?: string;
  /** mag: MAG's 19 fields of study; topics: OpenAlex Topics' 26 fields (fields.ts). */
  fieldScheme: FieldScheme;
}

/** A corpus store's origin in words: 'OpenAlex works snapshot of 2025-11-03; fields: OpenAlex Topics' 26 fields — not MAG's'. */
export function corpusSourceText(s: CorpusSourceRecord): string {
  const fields = s.fieldScheme === 'topics' ? "OpenAlex Topics' 26 fields — not MAG's" : "MAG's 19 fields of study";
  return `${s.name}${s.release ? ` snapshot of ${s.release}` : ''}; fields: ${fields}`;
}

/** The fields a run's field level is over: its store's scheme (MAG's for a synthetic corpus and older results). */
export function resultsFieldScheme(r: Pick<ResultsIndex, 'corpus'>): FieldScheme {
  return r.corpus.source?.fieldScheme ?? 'mag';
}

export interface ResultsIndex {
  format: 'citebench-results';
  version: 1;
  name: string;
  configHash: string;
  corpus: {
    kind: 'synthetic' | 'store';
    articles: number;
    citations: number;
    synthetic?: { articles: number; seed: number; generator: string };
    /** A corpus store's origin, from its meta.json (absent in results written before it was recorded). */
    source?: CorpusSourceRecord;
  };
  seed: number;
  scale: number;
  queryYear: number;
  k: number;
  measures: string[];
  models: ModelEntry[];
  skipped: { name: string; reason: string }[];
  tuning: TuningRecord[];
  /** Query exclusion lists (paper: SPECTER's and SciNCL's training queries). */
  excluded: { files: { path: string; sha256: string; ids: number; notInStore: number }[] };
  /** Field level: repeats actually run per field (one where the field-cited set does not exceed the pool). */
  fieldRepeats: Record<string, number>;
  /** Validation splits smaller than the config asks (present only when some are): see experiments/splits.ts. */
  validationShortfalls?: ValidationShortfall[];
  cells: CellSummary[];
  mdcr?: MdcrRecord;
  /** The BEIR task (protocols.beir), when the config has one. */
  beir?: BeirRecord;
  /**
   * Every paired test against a baseline that a table marks, computed once by the run
   * (experiments/significance-stage.ts). Absent in a results.json of an older citebench (significanceNote).
   */
  significance?: SignificanceRecord;
}

/**
 * One comparison: a model against a baseline in one cell of a table (a pool size at the dataset level, a field
 * at the field level), over the same queries, each query's value the mean over the cell's repeats.
 */
export interface SignificanceRow {
  /** The model it is compared with (one of SignificanceRecord.baselines). */
  baseline: string;
  protocol: 'dataset' | 'field';
  setting: 'transductive' | 'inductive';
  measure: string;
  /** The field's name at the field level (corpus/fields.ts); null at the dataset level. */
  field: string | null;
  poolSize: number;
  model: string;
  queries: number;
  /** Mean of model − baseline (raw, not ×100). */
  meanDiff: number;
  pT: number;
  pRandomization: number;
  /** Holm-adjusted paired t-test p, over the rows of its family (SIGNIFICANCE_FAMILY). */
  pHolm: number;
  /** Holm-adjusted randomization-test p, over the same family. */
  pRandomizationHolm: number;
  /** 95 % t-interval of the mean difference (absent in a results.json of an older citebench; null below two queries). */
  ci95?: Interval;
  /** Seeded percentile-bootstrap 95 % interval of the mean difference (`trials` resamples). */
  bootstrapCi95?: Interval;
  /** d_z = mean difference / sd of the differences (n − 1); null (JSON) for a constant non-zero shift. */
  effectSize?: number | null;
  /** The p-values adjusted by the record's correction over the family (= pHolm, pRandomizationHolm under holm). */
  pAdjusted?: number;
  pRandomizationAdjusted?: number;
  correction?: Correction;
}

/** A table cell's mean over its queries (each the mean over the cell's repeats) with its 95 % t-interval. */
export interface MeanIntervalRow {
  protocol: 'dataset' | 'field';
  setting: 'transductive' | 'inductive';
  measure: string;
  field: string | null;
  poolSize: number;
  model: string;
  queries: number;
  mean: number;
  ci95: Interval;
}

/**
 * The randomised Tukey HSD of every model against every other, per protocol × setting × measure × pool size (the
 * field level pooled over its fields: a query is a field's query): one family of all pairs.
 */
export interface AllPairsRow {
  protocol: 'dataset' | 'field';
  setting: 'transductive' | 'inductive';
  measure: string;
  poolSize: number;
  a: string;
  b: string;
  /** mean_a − mean_b over the queries every model has. */
  meanDiff: number;
  pTukey: number;
}

/** The compact letter display of one all-pairs family: models sharing a letter are not significantly different (pTukey ≥ alpha). */
export interface GroupRow {
  protocol: 'dataset' | 'field';
  setting: 'transductive' | 'inductive';
  measure: string;
  poolSize: number;
  /** Queries every model has (the ones tested). */
  queries: number;
  /** Model → its letters, its mean over those queries and the mean's 95 % t-interval. */
  letters: Record<string, string>;
  means: Record<string, number>;
  ci95: Record<string, Interval>;
}

/** One slice (queries sharing a value of an attribute) of one model in one table cell; models other than the baseline carry the difference. */
export interface SliceRecordRow extends SliceStats {
  protocol: 'dataset' | 'field';
  setting: 'transductive' | 'inductive';
  measure: string;
  poolSize: number;
  /** The query attribute (config significance.slices): field, year, references, citations. */
  attribute: string;
  model: string;
}

/** The level below which a Holm-adjusted p is marked significant (* t-test, † randomization test). */
export const SIGNIFICANCE_ALPHA = 0.05;

/** What one Holm family is, as results.json records it (the rows that share these values). */
export const SIGNIFICANCE_FAMILY = 'baseline, protocol, setting, measure';

export interface SignificanceRecord {
  /** The models every other is compared with, in the config's order (none: no rows). */
  baselines: string[];
  trials: number;
  seed: number;
  /** Rows sharing these values form one Holm family: one measure of one report table against one baseline. */
  family: typeof SIGNIFICANCE_FAMILY;
  /** SIGNIFICANCE_ALPHA: the level below which an adjusted p is marked (* t-test, † randomization). */
  alpha: number;
  rows: SignificanceRow[];
  /** Models beyond the paper (their kind's registry entry says so): the rows of the beyond-the-paper table. */
  beyondPaper?: string[];
  /** The correction of pAdjusted (absent in an older record: Holm, pHolm). */
  correction?: Correction;
  /** Every table cell's mean with its 95 % interval over queries. */
  means?: MeanIntervalRow[];
  /** All pairs of models (randomised Tukey HSD) and their letter groups; absent with significance.allPairs: false. */
  allPairs?: AllPairsRow[];
  groups?: GroupRow[];
  /** Per-query results grouped by query attributes (significance.slices). */
  slices?: SliceRecordRow[];
}

/** The record of a results.json of the previous format (one baseline, rows without it), read as the current one. */
function significanceRecord(s: unknown): SignificanceRecord | undefined {
  const old = s as (Omit<SignificanceRecord, 'baselines' | 'family' | 'rows'> & { baseline: string | null; family: string; rows: Omit<SignificanceRow, 'baseline'>[] }) | undefined;
  if (!old || old.family !== 'protocol, setting, measure' || !Array.isArray(old.rows)) return s as SignificanceRecord | undefined;
  const { baseline, rows, family: _f, ...rest } = old;
  return { ...rest, baselines: baseline === null ? [] : [baseline], family: SIGNIFICANCE_FAMILY, rows: rows.map((x) => ({ baseline: baseline!, ...x })) };
}

/** A run's first baseline: its stored significance record's, else its first lexical model (a results.json without a record). */
export function firstBaseline(r: Pick<ResultsIndex, 'significance' | 'models'>): string | undefined {
  return r.significance?.baselines?.[0] ?? r.models.find((m) => m.weights === 'lexical')?.name;
}

export function readResults(dir: string): ResultsIndex {
  const p = join(dir, 'results.json');
  if (!existsSync(p)) throw new CitebenchError(`${dir}: not a results folder of citebench run (no results.json)`);
  const r = readJsonFile(p) as ResultsIndex;
  if (r?.format !== 'citebench-results' || r.version !== 1) throw new CitebenchError(`${p}: not a citebench results index (version 1)`);
  r.tuning = (r.tuning ?? []).map(tuningRecord);
  if (r.significance) r.significance = significanceRecord(r.significance);
  return r;
}

/** A cell's full record (per-query values and query ids) from its file in the results folder. */
export function readCell(dir: string, cell: Pick<CellSummary, 'file'>): CellRecord {
  return readJsonFile(join(dir, cell.file)) as CellRecord;
}

/** Mean over repeats per (model, protocol, field, pool size) of the test split: what the paper's tables print. */
export interface MeanRow {
  model: string;
  protocol: 'dataset' | 'field' | 'beir';
  field: FieldName | null;
  /** BEIR protocol: the task's name. */
  task?: string;
  poolSize: number;
  /** Present only for the inductive setting. */
  setting?: 'inductive';
  repeats: number;
  means: Record<string, number>;
  /** Standard deviation over repeats (0 for one repeat). */
  sd: Record<string, number>;
}

export function meanOverRepeats(cells: (Pick<CellSummary, 'model' | 'protocol' | 'split' | 'field' | 'poolSize' | 'means'> & { setting?: 'inductive'; task?: string })[]): MeanRow[] {
  const groups = new Map<string, typeof cells>();
  for (const c of cells) {
    if (c.split !== 'test') continue;
    const k = `${c.model}\u0000${c.protocol}\u0000${c.field}\u0000${c.poolSize}\u0000${c.setting ?? ''}\u0000${c.task ?? ''}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(c);
  }
  return [...groups.values()].map((g) => {
    const names = Object.keys(g[0].means);
    const mean = (n: string) => g.reduce((s, c) => s + c.means[n], 0) / g.length;
    return {
      model: g[0].model,
      protocol: g[0].protocol,
      field: g[0].field,
      poolSize: g[0].poolSize,
      ...(g[0].task ? { task: g[0].task } : {}),
      ...(g[0].setting ? { setting: g[0].setting } : {}),
      repeats: g.length,
      means: Object.fromEntries(names.map((n) => [n, mean(n)])),
      sd: Object.fromEntries(names.map((n) => {
        const m = mean(n);
        return [n, g.length > 1 ? Math.sqrt(g.reduce((s, c) => s + (c.means[n] - m) ** 2, 0) / (g.length - 1)) : 0];
      })),
    };
  });
}
