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
 * articles cited by some article labelled with the field — published in or before `queryYear`. When the
 * field-cited set does not exceed S, the pool is all of it and there is one repeat (paper: Art, History,
 * Philosophy).
 */
import type { CorpusStore } from '../corpus/store.ts';
import { FIELDS, type Field } from '../corpus/fields.ts';
import { rngFor } from '../util/rng.ts';
import { CitebenchError } from '../util/errors.ts';

type Graph = Pick<CorpusStore, 'size' | 'years' | 'fields' | 'outOffsets' | 'outTargets'>;

export interface QueryOptions {
  count: number;
  seed: number;
  queryYear?: number;
  /** Restrict to articles labelled with this field (field-level protocol). */
  field?: Field;
}

/** Query articles: `count` random articles of `queryYear` (of `field`) citing ≥ 1 store article. */
export function sampleQueries(store: Graph, opts: QueryOptions): Uint32Array {
  const year = opts.queryYear ?? 2019;
  const bit = opts.field ? 1 << FIELDS.indexOf(opts.field) : 0;
  const eligible: number[] = [];
  for (let i = 0; i < store.size; i++) {
    if (store.years[i] !== year) continue;
    if (bit && !(store.fields[i] & bit)) continue;
    if (store.outOffsets[i + 1] > store.outOffsets[i]) eligible.push(i);
  }
  const what = `${year} articles${opts.field ? ` of ${opts.field}` : ''} citing the corpus`;
  if (eligible.length < opts.count) {
    throw new CitebenchError(`cannot sample ${opts.count} queries: only ${eligible.length} ${what}`);
  }
  const stream = `queries/${opts.field ?? 'dataset'}/${year}/${opts.count}`;
  const pick = rngFor(opts.seed, stream).sampleIndices(eligible.length, opts.count);
  return pick.map((k) => eligible[k]);
}

/** Sorted union of the articles cited by `queries`. */
export function citedBy(store: Graph, queries: Uint32Array): Uint32Array {
  const mark = new Uint8Array(store.size);
  for (const q of queries) for (let e = store.outOffsets[q]; e < store.outOffsets[q + 1]; e++) mark[store.outTargets[e]] = 1;
  return indicesOf(mark);
}

/** Articles cited by at least one article labelled with `field` (the paper's "field-cited" set). */
export function fieldCited(store: Graph, field: Field): Uint32Array {
  const bit = 1 << FIELDS.indexOf(field);
  const mark = new Uint8Array(store.size);
  for (let i = 0; i < store.size; i++) {
    if (!(store.fields[i] & bit)) continue;
    for (let e = store.outOffsets[i]; e < store.outOffsets[i + 1]; e++) mark[store.outTargets[e]] = 1;
  }
  return indicesOf(mark);
}

export interface PoolOptions {
  size: number;
  repeat: number;
  seed: number;
  queryYear?: number;
  /** Field-level protocol: fill from this field's field-cited set instead of the whole corpus. */
  field?: Field;
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
  const cited = citedBy(store, queries);
  if (cited.length > opts.size) {
    throw new CitebenchError(`pool size ${opts.size} is smaller than the ${cited.length} articles the queries cite`);
  }
  const inPool = new Uint8Array(store.size);
  for (const c of cited) inPool[c] = 1;
  const source = opts.field ? fieldCited(store, opts.field) : undefined;
  // Fill candidates: (field-cited or all) articles of year ≤ queryYear not already in the pool.
  const fill: number[] = [];
  const consider = (i: number) => {
    const y = store.years[i];
    if (!inPool[i] && y !== 0 && y <= year) fill.push(i);
  };
  if (source) for (const i of source) consider(i);
  else for (let i = 0; i < store.size; i++) consider(i);
  const need = opts.size - cited.length;
  let exhausted = false;
  if (fill.length <= need) {
    if (!opts.field) throw new CitebenchError(`cannot sample a pool of ${opts.size}: the corpus has only ${cited.length + fill.length} articles from ${year} or before`);
    exhausted = true;
    for (const i of fill) inPool[i] = 1;
  } else {
    const stream = `pool/${opts.field ?? 'dataset'}/${opts.size}/${opts.repeat}`;
    for (const k of rngFor(opts.seed, stream).sampleIndices(fill.length, need)) inPool[fill[k]] = 1;
  }
  return { members: indicesOf(inPool), cited: cited.length, exhausted };
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
