/**
 * Query sets and candidate pools of the paper's two large-scale protocols (§3), over a corpus store whose
 * articles are already prefiltered. Every draw comes from a named RNG stream of the seed, so a pool is a pure
 * function of (store, protocol, size, repeat, seed). All sets are sorted Uint32Arrays of corpus indices.
 *
 * Dataset level (§3.1): queries are random articles published in `queryYear` (2019) that cite at least one
 * article of the store; a pool of size S holds every article cited by any query, filled up to S with random
 * articles published in or before `queryYear`.
 * Field level (§3.2): per MAG field, queries are random `queryYear` articles labelled with the field; the pool
 * holds every article the field's queries cite, filled up to S (100 k) with random "field-cited" articles —
 * articles cited by some input article labelled with the field, prefiltered out or not (the paper: "cited in
 * all S2ORC articles labeled with a specific MAG field"; the store's citedByFields column) — published in or
 * before `queryYear`. When the field-cited set does not exceed S, the pool is all of it and there is one
 * repeat (paper: Art, History, Philosophy).
 */
import type { CorpusStore } from '../corpus/store.ts';
import { fieldBitIn, type FieldName, type FieldScheme } from '../corpus/fields.ts';
import { rngFor } from '../util/rng.ts';
import { CitebenchError } from '../util/errors.ts';

/** The store's field bitmasks are over its scheme (MAG's 19 fields unless it says otherwise). */
type Graph = Pick<CorpusStore, 'size' | 'years' | 'fields' | 'citedByFields' | 'outOffsets' | 'outTargets'> & { fieldScheme?: FieldScheme };

/** A field of the store's scheme (fields.ts). */
export type { FieldName } from '../corpus/fields.ts';

/** The bit of `field` in the store's field scheme; a field the scheme does not have is an error, never an empty set. */
export function fieldBitOf(store: { fieldScheme?: FieldScheme }, field: FieldName): number {
  const scheme = store.fieldScheme ?? 'mag';
  const bit = fieldBitIn(scheme, field);
  if (bit === 0) throw new CitebenchError(`field '${field}' is not one of this store's fields (${scheme === 'mag' ? "MAG's 19" : "OpenAlex Topics' 26"})`);
  return bit;
}

export interface QueryOptions {
  count: number;
  seed: number;
  queryYear?: number;
  /** Restrict to articles labelled with this field (field-level protocol). */
  field?: FieldName;
  /** Only articles citing at least this many store articles (default 1; MDCR needs 5 positives). */
  minCited?: number;
  /**
   * Corpus indices never used as queries (sorted Uint32Array or a Set), e.g. the training queries of the models
   * evaluated (the paper left out SPECTER's and SciNCL's; see exclusions.ts).
   */
  exclude?: Uint32Array | Set<number>;
  /**
   * Which split the draw is for: 'test' (default) keeps the stream of earlier versions; another name ('val')
   * draws from a stream of its own, so a validation split is an independent sample (exclude the test queries
   * to make it disjoint).
   */
  split?: string;
  /**
   * Inductive setting (Goyal et al. 2026 §3.1): only citations of articles published strictly before `queryYear`
   * count towards `minCited` (the others can never be in an inductive pool). Draws from a stream of its own;
   * absent or false keeps every earlier stream.
   */
  inductive?: boolean;
  /**
   * Take every eligible article when fewer than `count` remain (at least one must), instead of failing: for a
   * validation split, whose size the paper does not fix, in a field too small for both splits at full size.
   * The draw is the same stream's permutation of all of them; `QuerySet.requested` says what was asked.
   */
  allowFewer?: boolean;
}

export interface QuerySet {
  /** The sampled queries, in draw order. */
  queries: Uint32Array;
  /** Articles eligible as queries before the exclusion. */
  candidates: number;
  /** Of those, the ones the exclusion left out. */
  excluded: number;
  /** The count asked for; above `queries.length` only with `allowFewer` (a shortfall to report). */
  requested: number;
}

/** Articles that may be queries: of `queryYear` (and `field`), citing ≥ `minCited` store articles, not excluded; ascending. */
export function eligibleQueries(store: Graph, opts: Omit<QueryOptions, 'count' | 'seed'>): number[] {
  return eligible(store, opts).eligible;
}

function eligible(store: Graph, opts: Omit<QueryOptions, 'count' | 'seed'>): { eligible: number[]; excluded: number } {
  const year = opts.queryYear ?? 2019;
  const minCited = Math.max(1, opts.minCited ?? 1);
  const bit = opts.field ? fieldBitOf(store, opts.field) : 0;
  const skip = exclusionMask(store.size, opts.exclude);
  const out: number[] = [];
  let excluded = 0;
  for (let i = 0; i < store.size; i++) {
    if (store.years[i] !== year) continue;
    if (bit && !(store.fields[i] & bit)) continue;
    if (store.outOffsets[i + 1] - store.outOffsets[i] < minCited) continue;
    if (opts.inductive && citedBefore(store, i, year) < minCited) continue;
    if (skip && skip[i]) excluded++;
    else out.push(i);
  }
  return { eligible: out, excluded };
}

/** Query articles: `count` random articles of `queryYear` (of `field`) citing ≥ `minCited` (1) store articles. */
export function sampleQueries(store: Graph, opts: QueryOptions): Uint32Array {
  return sampleQuerySet(store, opts).queries;
}

/**
 * The validation split's rule, the one every protocol uses (experiments/splits.ts, MDCR's val split): drawn like
 * the test split on a stream of its own, never one of the test queries nor an excluded id; where fewer are
 * eligible than asked it takes every one left (the QuerySet says how many were asked and eligible).
 */
export function sampleValQueries(store: Graph, opts: Omit<QueryOptions, 'split' | 'allowFewer'>, test: Uint32Array): QuerySet {
  const exclude = new Set<number>(test);
  for (const x of opts.exclude ?? []) exclude.add(x);
  return sampleQuerySet(store, { ...opts, exclude, split: 'val', allowFewer: true });
}

/** sampleQueries, also saying how many candidates there were and how many the exclusion removed. */
export function sampleQuerySet(store: Graph, opts: QueryOptions): QuerySet {
  const year = opts.queryYear ?? 2019;
  const minCited = Math.max(1, opts.minCited ?? 1);
  const { eligible: pool, excluded } = eligible(store, opts);
  const what = `${year} articles${opts.field ? ` of ${opts.field}` : ''} citing ${minCited > 1 ? `≥ ${minCited} articles of ` : ''}the corpus`;
  if (pool.length < opts.count && !(opts.allowFewer && pool.length > 0)) {
    const ex = excluded ? ` (${excluded} more are excluded: the exclusion list${opts.split && opts.split !== 'test' ? ' or the test queries' : ''})` : '';
    throw new CitebenchError(`cannot sample ${opts.count} ${opts.split && opts.split !== 'test' ? `${opts.split} ` : ''}queries: only ${pool.length} ${what}${ex}`);
  }
  // The default keeps the stream name of earlier versions, so their query sets are unchanged; with or without an
  // exclusion the stream is the same (the draw is over the remaining candidates).
  const split = opts.split && opts.split !== 'test' ? `${opts.split}/` : '';
  const stream = `queries/${split}${opts.field ?? 'dataset'}/${year}/${opts.count}${minCited > 1 ? `/min-cited-${minCited}` : ''}${opts.inductive ? '/inductive' : ''}`;
  const pick = rngFor(opts.seed, stream).sampleIndices(pool.length, Math.min(opts.count, pool.length));
  return { queries: pick.map((k) => pool[k]), candidates: pool.length + excluded, excluded, requested: opts.count };
}

/** How a query set drawn with `allowFewer` fell short, in words: `where` names the field or protocol. */
export function shortfallNote(where: string, sampled: number, requested: number, eligible: number): string {
  return `${where}: ${sampled} validation queries instead of ${requested} — ${eligible} articles are eligible ` +
    `and the test split (with any excluded ids) takes the other ${eligible - sampled}`;
}

/** Store articles cited by `i` that were published strictly before `year` (known year). */
function citedBefore(store: Graph, i: number, year: number): number {
  let n = 0;
  for (let e = store.outOffsets[i]; e < store.outOffsets[i + 1]; e++) {
    const y = store.years[store.outTargets[e]];
    if (y !== 0 && y < year) n++;
  }
  return n;
}

function exclusionMask(size: number, exclude: Uint32Array | Set<number> | undefined): Uint8Array | undefined {
  if (!exclude) return undefined;
  const mask = new Uint8Array(size);
  for (const i of exclude) if (i < size) mask[i] = 1;
  return mask;
}

/** Sorted union of the articles cited by `queries`. */
export function citedBy(store: Graph, queries: Uint32Array): Uint32Array {
  const mark = new Uint8Array(store.size);
  for (const q of queries) for (let e = store.outOffsets[q]; e < store.outOffsets[q + 1]; e++) mark[store.outTargets[e]] = 1;
  return indicesOf(mark);
}

/**
 * Stored articles cited by at least one input article labelled with `field` — the paper's "field-cited" set,
 * counting citing articles the prefilter removed (only the cited article must be in the store).
 */
export function fieldCited(store: Graph, field: FieldName): Uint32Array {
  const bit = fieldBitOf(store, field);
  const mark = new Uint8Array(store.size);
  for (let i = 0; i < store.size; i++) if (store.citedByFields[i] & bit) mark[i] = 1;
  return indicesOf(mark);
}

export interface PoolOptions {
  size: number;
  repeat: number;
  seed: number;
  queryYear?: number;
  /** Field-level protocol: fill from this field's field-cited set instead of the whole corpus. */
  field?: FieldName;
  /** The queries' split: 'test' (default, the stream of earlier versions) or another name with its own stream. */
  split?: string;
  /**
   * Inductive setting (Goyal et al. 2026 §3.1): no query in the pool, and every member (cited ones included)
   * published strictly before `queryYear` — "≤ 2019" becomes "< 2019"; articles of unknown year are left out.
   * Draws from a stream of its own; absent or false keeps every earlier stream.
   */
  inductive?: boolean;
}

export interface Pool {
  /** Sorted corpus indices. */
  members: Uint32Array;
  /** Articles in the pool because a query cites them. */
  cited: number;
  /** True when the fill set was smaller than requested, so the pool is cited ∪ the whole fill set. */
  exhausted: boolean;
}

export function samplePool(store: Graph, queries: Uint32Array, opts: PoolOptions): Pool {
  const year = opts.queryYear ?? 2019;
  let cited = citedBy(store, queries);
  const isQuery = opts.inductive ? new Uint8Array(store.size) : undefined;
  if (isQuery) {
    for (const q of queries) isQuery[q] = 1;
    cited = cited.filter((c) => !isQuery[c] && store.years[c] !== 0 && store.years[c] < year);
  }
  if (cited.length > opts.size) {
    throw new CitebenchError(`pool size ${opts.size} is smaller than the ${cited.length} articles the queries cite`);
  }
  const inPool = new Uint8Array(store.size);
  for (const c of cited) inPool[c] = 1;
  const source = opts.field ? fieldCited(store, opts.field) : undefined;
  // Fill candidates: (field-cited or all) articles of year ≤ queryYear (inductive: < queryYear, no query) not
  // already in the pool.
  const fill: number[] = [];
  const last = opts.inductive ? year - 1 : year;
  const consider = (i: number) => {
    const y = store.years[i];
    if (!inPool[i] && y !== 0 && y <= last && !(isQuery && isQuery[i])) fill.push(i);
  };
  if (source) for (const i of source) consider(i);
  else for (let i = 0; i < store.size; i++) consider(i);
  const need = opts.size - cited.length;
  let exhausted = false;
  if (fill.length <= need) {
    if (!opts.field) throw new CitebenchError(`cannot sample a pool of ${opts.size}: the corpus has only ${cited.length + fill.length} articles from ${opts.inductive ? `before ${year} (inductive setting)` : `${year} or before`}`);
    exhausted = true;
    for (const i of fill) inPool[i] = 1;
  } else {
    const split = opts.split && opts.split !== 'test' ? `${opts.split}/` : '';
    const stream = `pool/${split}${opts.field ?? 'dataset'}/${opts.size}/${opts.repeat}${opts.inductive ? '/inductive' : ''}`;
    for (const k of rngFor(opts.seed, stream).sampleIndices(fill.length, need)) inPool[fill[k]] = 1;
  }
  return { members: indicesOf(inPool), cited: cited.length, exhausted };
}

/**
 * A pool and its qrels (each query's cited articles in the pool, relevance 1): the one builder of every pool
 * group, validation split and tuning split.
 */
export function poolWithQrels(store: Graph, queries: Uint32Array, opts: PoolOptions): { pool: Pool; qrels: { offsets: Uint32Array; docs: Uint32Array; labels: Int32Array } } {
  const pool = samplePool(store, queries, opts);
  const rel = citationQrels(store, queries, pool.members);
  return { pool, qrels: { offsets: rel.offsets, docs: rel.docs, labels: new Int32Array(rel.docs.length).fill(1) } };
}

/** Relevance judgements: each query's cited articles that are in the pool (all of them, by construction). */
export function citationQrels(store: Graph, queries: Uint32Array, pool?: Uint32Array): { offsets: Uint32Array; docs: Uint32Array } {
  const inPool = pool ? new Uint8Array(store.size) : undefined;
  if (pool && inPool) for (const p of pool) inPool[p] = 1;
  const offsets = new Uint32Array(queries.length + 1);
  const docs: number[] = [];
  queries.forEach((q, k) => {
    for (let e = store.outOffsets[q]; e < store.outOffsets[q + 1]; e++) {
      const d = store.outTargets[e];
      if (!inPool || inPool[d]) docs.push(d);
    }
    offsets[k + 1] = docs.length;
  });
  return { offsets, docs: Uint32Array.from(docs) };
}

function indicesOf(mark: Uint8Array): Uint32Array {
  let n = 0;
  for (let i = 0; i < mark.length; i++) n += mark[i];
  const out = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < mark.length; i++) if (mark[i]) out[k++] = i;
  return out;
}
