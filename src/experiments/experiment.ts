/**
 * experiment(): the one way numbers are made, after PyTerrier's `Experiment`. Topics (query articles), a pool or
 * per-query candidate lists, qrels, retrievers and measures in; per retriever the means and per-query values
 * out — trec_eval's (a query whose list comes back empty counts 0: trec_eval -c) or, for an MDCR benchmark,
 * evaluate.py's per-field values and their average, for every candidate type together and each alone. With a
 * cache location every retriever's result is a cell of the one cache (result-cache.ts): its run file (a TREC run,
 * or MDCR's scores file) and then its record, written atomically, keyed on everything that determines it (the
 * retriever's fingerprint among it), locked while computed; a killed call resumes at the first retriever without
 * a current record. Records hold no timings: the same input gives the same bytes.
 *
 * The runner's pool groups (cells.ts), its MDCR stage, its BEIR task, every tuner (tune.ts: the config's and
 * `citebench bm25 tune`), `citebench mdcr score` and a notebook's ad-hoc comparison are calls of it.
 */
import { join } from 'node:path';
import { evaluateRankedLists } from '../eval/index.ts';
import { evaluateMdcrByType, type MdcrBenchmark, type MdcrResult } from '../eval/mdcr.ts';
import { mdcrScore, mdcrScoresText } from '../eval/mdcr-data.ts';
import { parseMeasure } from '../eval/registry.ts';
import type { DocOrder, QrelsCsr } from '../eval/types.ts';
import { writeRun } from '../eval/trec-write.ts';
import type { CellCost, MdcrSummary } from '../report/results.ts';

export type { CellCost } from '../report/results.ts';
import { costsOf, type RankedLists, type Retriever, type Setting } from '../retrieval/retriever.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';
import { keyOf, type InputsDescription, type Keyed } from '../util/identity.ts';
import { cachedRecord, type LockPolicy } from './result-cache.ts';

/** What a cell needs of a model: its name (file names, tables) and its retriever. */
export interface CellModel {
  name: string;
  retriever: Retriever;
}

/** evaluate.py's numbers of one model (mdcr.ts), all candidate types together and each negative type alone. */
export interface MdcrCellValues {
  all: MdcrSummary;
  types: Record<string, MdcrSummary>;
}

/**
 * The version of how a cell is evaluated (the measures, the empty-list rule, what a record holds), part of every
 * cell's key: raise it when a change makes stored cells wrong.
 */
export const EVALUATION_VERSION = 1;

/** One retriever's numbers on the topics. */
export interface ExperimentCell {
  key: string;
  /** What the key was made of, each input briefly (util/identity.ts keyOf); cached cells only. */
  inputs?: InputsDescription;
  model: string;
  queries: number;
  /** Queries whose ranked list came back empty (each counts 0 in every mean). */
  emptyLists: number;
  /** Measure → mean over the topics (MDCR: evaluate.py's AVG over fields, ×100, of all candidate types). */
  means: Record<string, number>;
  /** Measure → per-query values in `queryIds` order (trec_eval evaluation only). */
  perQuery: Record<string, number[]>;
  /** Query ids in topic order: the rows of perQuery. */
  queryIds: string[];
  /** MDCR evaluation only. */
  mdcr?: MdcrCellValues;
}

/** Evaluate as MDCR's evaluate.py does: per field of a benchmark, ×100 to 4 decimals, AVG over fields. */
export interface MdcrEvaluation {
  /** The parsed benchmark (mdcr_<split>.json): field → query → candidate type → ids. */
  benchmark: MdcrBenchmark;
  /** Negative types evaluated alone beside all types together (Table 4). */
  types: string[];
  /** Its file, for messages. */
  benchmarkPath?: string;
  /** A query lacking a negative type's list: an error (default, as evaluate.py) or an empty list (mdcr.ts lenient). */
  lenient?: boolean;
}

/** Where and how cells are cached (result-cache.ts); without one, experiment() computes in memory and writes nothing. */
export interface ExperimentCache<R extends ExperimentCell = ExperimentCell> extends LockPolicy {
  /** Folder the files below are relative to. */
  dir: string;
  /** A model's record and run file (default cells/<model>/<name>.json, runs/<model>/<name>.trec). */
  name: string;
  /**
   * Everything besides the topics, pool, candidates, qrels, retriever and evaluation settings that determines a
   * cell (corpus identity, sampling settings…), each entry an input of its key (cellIdentity).
   */
  keyParts?: Record<string, unknown>;
  /** The stored record of a computed cell (default: the cell and its run file). */
  record?: (cell: ExperimentCell, runFile: string | undefined) => R;
  /** A model's record (default cells/<model>/<name>.json). */
  cellFile?: (model: string) => string;
  /** A model's run file — the TREC run (default runs/<model>/<name>.trec) or MDCR's scores file — or none (false). */
  runFile?: ((model: string) => string) | false;
  /**
   * Told what a cell computed now cost (its record's file, its queries, seconds by stage, pairs re-scored). Kept
   * out of the record, so the same configuration and seed give the same bytes; the runner puts it in timings.json.
   */
  costs?: (recordFile: string, cost: CellCost) => void;
}


export interface ExperimentInput<R extends ExperimentCell = ExperimentCell> {
  /** Article ids (run files, query ids) and trec_eval's tie order over them (a corpus store gives both). */
  docs: { id(i: number): string; idOrder: DocOrder };
  /** Corpus indices of the query articles. */
  topics: Uint32Array;
  /**
   * The candidate pool every topic searches (sorted, distinct; absent: the whole corpus); with `candidates`, the
   * articles whose statistics a scorer uses (BM25's document frequencies over an MDCR data file's papers).
   */
  pool?: Uint32Array;
  /** Each topic's own candidate list: every candidate scored, none searched for (MDCR). */
  candidates?: Uint32Array[];
  /** Leave a query article out of its own list (default true; MDCR scores its pairs as given: false). */
  excludeSelf?: boolean;
  /** trec_eval evaluation: the judgements (rows in topic order)… */
  qrels?: QrelsCsr;
  /** …and the measures as configs name them (MAP, nDCG, R@30…), one cutoff each. */
  measures?: string[];
  /** …or MDCR's evaluation of candidate lists. */
  mdcr?: MdcrEvaluation;
  retrievers: CellModel[];
  /** Results per topic (with candidates: at least the longest list). */
  k: number;
  setting?: Setting;
  /** A topic whose list comes back empty: counts 0 in every mean ('zero', trec_eval -c) or fails the cell. */
  emptyLists?: 'zero' | 'error';
  cache?: ExperimentCache<R>;
  log?: (line: string) => void;
  /** Told as each retriever's cell is done (computed, read back or held by another worker): progress. */
  onCell?: (model: string) => void;
}

export interface ExperimentOutput<R extends ExperimentCell = ExperimentCell> {
  /** One per retriever, in the order given (models another live worker holds are left out: `skipped`). */
  cells: R[];
  /** The ranked lists of the retrievers searched now (cached cells are not read back). */
  lists: Map<string, RankedLists>;
  /** Retrievers whose cell another live worker holds (cache.locked 'skip' only). */
  skipped: string[];
}

/** Evaluate every retriever on the topics (reading back each cached cell that is current). */
export async function experiment<R extends ExperimentCell = ExperimentCell>(input: ExperimentInput<R>): Promise<ExperimentOutput<R>> {
  if (input.candidates && input.candidates.length !== input.topics.length) throw new CitebenchError(`experiment: ${input.candidates.length} candidate lists for ${input.topics.length} topics`);
  if (input.mdcr && !input.candidates) throw new CitebenchError('experiment: an MDCR evaluation scores candidate lists: give them');
  if (!input.mdcr && (!input.qrels || !input.measures?.length)) throw new CitebenchError('experiment: give qrels and measures (or an MDCR benchmark)');
  const evaluateRun = input.mdcr ? mdcrEvaluator(input, input.mdcr) : trecEvaluator(input);
  const qids = Array.from(input.topics, (q) => input.docs.id(q));
  const cache = input.cache;
  const log = input.log ?? (() => {});
  const out: ExperimentOutput<R> = { cells: [], lists: new Map(), skipped: [] };
  const compute = async (model: CellModel, keyed: Keyed | undefined, runFile: string | undefined, recordFile?: string): Promise<R> => {
    const label = `${model.name}${cache ? ` ${cache.name}` : ''}`;
    const t0 = performance.now();
    log(`${label}: ${input.topics.length} queries over ${input.candidates ? 'their candidate lists' : input.pool ? `${input.pool.length} articles` : 'the corpus'}`);
    model.retriever.takeCosts?.();
    const run = await model.retriever.search({
      queries: input.topics, pool: input.pool, candidates: input.candidates, k: input.k, excludeSelf: input.excludeSelf ?? true, setting: input.setting ?? 'transductive',
    });
    const costs = costsOf(model.retriever, (performance.now() - t0) / 1000);
    if (recordFile) cache?.costs?.(recordFile, { queries: input.topics.length, ...costs });
    let empty = 0;
    for (let q = 0; q < input.topics.length; q++) if (run.offsets[q + 1] === run.offsets[q]) empty++;
    if (empty && input.emptyLists === 'error') {
      const first = input.topics.find((_, q) => run.offsets[q + 1] === run.offsets[q])!;
      throw new CitebenchError(`${label}: ${empty} of ${input.topics.length} queries got an empty ranked list (first: ${input.docs.id(first)}); with emptyLists 'zero' they count 0`);
    }
    const values = evaluateRun(model.name, run, qids);
    if (runFile) {
      if (input.mdcr) writeFileAtomic(join(cache!.dir, runFile), mdcrScoresText(qids, (d) => input.docs.id(d), run));
      else writeRun(join(cache!.dir, runFile), { qids, docnos: (d) => input.docs.id(d), run, tag: model.name });
    }
    const cell: ExperimentCell = { key: keyed?.key ?? '', ...(keyed ? { inputs: keyed.inputs } : {}), model: model.name, queries: input.topics.length, emptyLists: empty, ...values };
    out.lists.set(model.name, run);
    const record = cache?.record ? cache.record(cell, runFile) : ((cache && runFile ? { ...cell, files: { run: runFile } } : cell) as unknown as R);
    log(`${label}: ${Object.entries(cell.means).map(([n, v]) => `${n} ${(input.mdcr ? v : 100 * v).toFixed(1)}`).join(', ')} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    return record;
  };
  for (const model of input.retrievers) {
    if (!cache) {
      out.cells.push(await compute(model, undefined, undefined));
      input.onCell?.(model.name);
      continue;
    }
    const keyed = cellIdentity(input, cache.keyParts, model.retriever);
    const runFile = cache.runFile === false ? undefined : cache.runFile ? cache.runFile(model.name) : `runs/${model.name}/${cache.name}.trec`;
    const record = cache.cellFile ? cache.cellFile(model.name) : `cells/${model.name}/${cache.name}.json`;
    const slot = { dir: cache.dir, record, files: runFile ? [runFile] : [], ...keyed, label: `${model.name} ${cache.name}` };
    const r = await cachedRecord<R>(slot, cache, () => compute(model, keyed, runFile, record), log);
    if (r === 'skipped') out.skipped.push(model.name);
    else out.cells.push(r);
    input.onCell?.(model.name);
  }
  return out;
}

type CellValues = Pick<ExperimentCell, 'means' | 'perQuery' | 'queryIds' | 'mdcr'>;

/** trec_eval's means and per-query values; an empty list counts 0 in every mean (trec_eval -c), never drops out. */
function trecEvaluator(input: ExperimentInput<ExperimentCell>): (model: string, run: RankedLists, qids: string[]) => CellValues {
  const names = input.measures!;
  const measures = names.map((n) => {
    const m = parseMeasure(n);
    if (m.length !== 1) throw new CitebenchError(`experiment: measure '${n}' expands to ${m.length} measures; name one cutoff (e.g. R@30)`);
    return m[0];
  });
  return (_model, run, qids) => {
    const res = evaluateRankedLists(run, input.qrels!, measures, { docOrder: input.docs.idOrder, options: { missing: 'zero' } });
    return {
      means: Object.fromEntries(names.map((n, m) => [n, res.summary[m]])),
      perQuery: Object.fromEntries(names.map((n, m) => [n, Array.from(res.perQuery[m])])),
      queryIds: qids,
    };
  };
}

/**
 * evaluate.py's numbers of every candidate list scored: the scores as the scores file holds them (mdcrScore),
 * evaluated with every candidate type and with each negative type alone.
 */
function mdcrEvaluator(input: ExperimentInput<ExperimentCell>, m: MdcrEvaluation): (model: string, run: RankedLists, qids: string[]) => CellValues {
  return (model, run, qids) => {
    const scores: Record<string, number> = {};
    qids.forEach((qid, q) => {
      const want = input.candidates![q].length;
      if (run.offsets[q + 1] - run.offsets[q] !== want) throw new CitebenchError(`${model} scored ${run.offsets[q + 1] - run.offsets[q]} of the ${want} candidates of query ${qid}`);
      for (let i = run.offsets[q]; i < run.offsets[q + 1]; i++) scores[`${qid}_${input.docs.id(run.docs[i])}`] = mdcrScore(run.scores[i]);
    });
    const paths = { benchmarkPath: m.benchmarkPath, scoresPath: `${model}'s scores`, lenient: m.lenient };
    const r = evaluateMdcrByType(m.benchmark, scores, { ...paths, types: m.types });
    const all = summary(r.all);
    return { means: { ...all.avg }, perQuery: {}, queryIds: [], mdcr: { all, types: Object.fromEntries(Object.entries(r.types).map(([t, v]) => [t, summary(v)])) } };
  };
}

function summary(r: MdcrResult): MdcrSummary {
  return { avg: r.avg, fields: r.fields.map((f) => ({ field: f.field, queries: f.queries, values: f.values })) };
}

/**
 * The one recipe of a cell's key (every experiment(): the runner's pool groups, MDCR, BEIR, tuning, ad-hoc): the
 * content of the topics, pool, candidate lists, judgements and MDCR benchmark, the retriever's fingerprint, the
 * evaluation parameters and version, and the caller's key parts (corpus identity, group settings …), each an
 * input of util/identity.ts keyOf, so a stale record says which of them changed.
 */
export function cellIdentity(input: Pick<ExperimentInput<ExperimentCell>, 'topics' | 'pool' | 'candidates' | 'qrels' | 'mdcr' | 'k' | 'measures' | 'setting' | 'emptyLists' | 'excludeSelf'>, parts: Record<string, unknown> | undefined, retriever: Retriever): Keyed {
  const own: Record<string, unknown> = {
    topics: input.topics, pool: input.pool, candidates: input.candidates, qrels: input.qrels && { offsets: input.qrels.offsets, docs: input.qrels.docs, labels: input.qrels.labels },
    mdcr: input.mdcr && { benchmark: input.mdcr.benchmark, types: input.mdcr.types }, model: retriever.fingerprint, code: EVALUATION_VERSION,
    params: { k: input.k, measures: input.measures ?? null, setting: input.setting ?? 'transductive', emptyLists: input.emptyLists ?? 'zero', excludeSelf: input.excludeSelf ?? true },
  };
  const clash = Object.keys(parts ?? {}).find((n) => n in own);
  if (clash) throw new CitebenchError(`experiment: key part '${clash}' is one of the cell's own inputs; name it otherwise`);
  return keyOf({ ...parts, ...own });
}
