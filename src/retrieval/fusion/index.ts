/**
 * Fusion as ranx (AmenRa/ranx, `ranx.fuse`) defines it: every run is normalised per query, then fused per query
 * over the union of the runs' documents, and the fused list is sorted as ranx sorts (score descending, ties as
 * numba's quicksort leaves them: sort.ts). Pure functions on typed arrays; the CLI (`citebench fuse`) and
 * FusionRetriever (retriever.ts) both come through here. docs/rerank.md, "Fusion", has the definitions.
 */
import { fuseScores } from './methods.ts';
import { normalise } from './normalise.ts';
import { ranxOrder } from './sort.ts';
import type { FusionSpec, QueryRuns } from './types.ts';

export * from './types.ts';
export { METHOD_PARAMS, paramsProblem, withDefaults } from './methods.ts';
export { ranxOrder } from './sort.ts';

/** One run's list for a query, in its input order (a file's lines, a retriever's list). */
export interface RunList<K> {
  keys: ArrayLike<K>;
  scores: ArrayLike<number>;
}

interface KeyIndex<K> {
  get(k: K): number | undefined;
  set(k: K, v: number): void;
}

/**
 * One query's runs as fusion takes them: each run sorted as ranx sorts it on loading (ranxOrder of its scores in
 * input order), cut to its first `depth`, and the union numbered by first appearance. `keys[d]` names union
 * document d. A key twice in one run's list is the caller's to refuse (ranx would keep the last score).
 */
export function prepareQuery<K>(runs: RunList<K>[], depth = Infinity): { query: QueryRuns; keys: K[] } {
  const index: KeyIndex<K> = runs.every((r) => r.keys instanceof Uint32Array)
    ? (uintIndex.clear(runs.reduce((t, r) => t + r.keys.length, 0)) as unknown as KeyIndex<K>)
    : new Map<K, number>();
  const keys: K[] = [];
  const ids: Int32Array[] = [];
  const scores: Float64Array[] = [];
  for (const run of runs) {
    const order = ranxOrder(run.scores);
    const m = Math.min(order.length, depth);
    const id = new Int32Array(m);
    const sc = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const key = run.keys[order[i]];
      let d = index.get(key);
      if (d === undefined) {
        d = keys.length;
        index.set(key, d);
        keys.push(key);
      }
      id[i] = d;
      sc[i] = run.scores[order[i]];
    }
    ids.push(id);
    scores.push(sc);
  }
  return { query: { n: keys.length, ids, scores }, keys };
}

/**
 * Union numbering for integer keys (corpus indices): open addressing over typed arrays, reused across queries —
 * a Map's per-entry cost is most of a query's fusion time at 3 × 1,000 documents.
 */
class UintIndex {
  private keys = new Uint32Array(0);
  private vals = new Int32Array(0);
  private stamp = new Uint32Array(0);
  private gen = 0;
  private mask = 0;

  clear(expected: number): this {
    const cap = 1 << Math.max(4, Math.ceil(Math.log2(2 * expected + 1)));
    if (cap > this.keys.length) {
      this.keys = new Uint32Array(cap);
      this.vals = new Int32Array(cap);
      this.stamp = new Uint32Array(cap);
      this.gen = 0;
    }
    this.mask = this.keys.length - 1;
    if (++this.gen === 0xffffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    return this;
  }

  get(k: number): number | undefined {
    for (let h = Math.imul(k, 0x9e3779b1) >>> 0 & this.mask; ; h = (h + 1) & this.mask) {
      if (this.stamp[h] !== this.gen) return undefined;
      if (this.keys[h] === k) return this.vals[h];
    }
  }

  set(k: number, v: number): void {
    let h = Math.imul(k, 0x9e3779b1) >>> 0 & this.mask;
    while (this.stamp[h] === this.gen && this.keys[h] !== k) h = (h + 1) & this.mask;
    this.stamp[h] = this.gen;
    this.keys[h] = k;
    this.vals[h] = v;
  }
}
const uintIndex = new UintIndex();

/** The fused list of one query: union documents best first (ranx's order) and their fused scores. */
export function fuseQuery(q: QueryRuns, spec: FusionSpec): { order: Int32Array; scores: Float64Array } {
  const scores = fuseScores(normalise(q, spec.norm), spec);
  return { order: ranxOrder(scores), scores };
}
