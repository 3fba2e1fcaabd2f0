/**
 * QueryScorer: one searcher's entry point. It picks the kernel — the compiled one (kernel.ts) where it was built,
 * else the TypeScript loop (typescript-kernel.ts), both giving the same lists bit for bit — looks fixed
 * candidates up instead (fixed-candidates.ts), and speaks corpus numbers whatever the arrays number (a pool
 * slice, pool-slice.ts). searchMany() hands the compiled kernel queries in groups, which it scores together.
 */
import { CitebenchError } from '../../util/errors.ts';
import { bm25Kernel, type Bm25Kernel } from './kernel.ts';
import { TypeScriptKernel, TS_BLOCK_DOCS } from './typescript-kernel.ts';
import { rankCandidates } from './fixed-candidates.ts';
import { slicePosition } from './pool-slice.ts';
import { TopKHeap } from './top-k-heap.ts';
import type { PreparedQuery, ScoringArrays, TopK } from './scoring-arrays.ts';

/** Terms (lossy lengths) with at least this many postings are scored from a per-query table, in both kernels. */
const TABLE_MIN_POSTINGS = 8192;
/**
 * The compiled kernel's block: 8 Ki × 8 bytes of accumulators, about the L1 data cache. One thread,
 * bench/bm25/kernel.ts: at 200 k documents 4–8 Ki blocks were level with 64 Ki on a quiet machine (≈ 1.5 ns per
 * posting) and ahead under load; at 1 M, 8–16 Ki blocks beat 4 Ki (2.2 vs 2.8 ns under load) and 64 Ki (2.3).
 */
const KERNEL_BLOCK_DOCS = 1 << 13;
/**
 * The grouped kernel's block (searchMany): 2 Ki rows of one double sum per query of a group (16 × 8 bytes) =
 * 256 KiB, in the L2 cache. One thread at 200 k documents: 2 Ki and 4 Ki rows level, 8 Ki slower (1.32 against
 * 1.22 ns per posting, bench/bm25/kernel.ts).
 */
const LANE_BLOCK_DOCS = 1 << 11;
/** Queries a searcher hands searchMany() at a time: the compiled kernel's group (its lanes), else one. */
export function queryGroup(): number {
  return bm25Kernel()?.lanes ?? 1;
}

/** One query of searchMany(): exclude = corpus index never returned (or -1); candidates as in search(). */
export interface ScorerQuery {
  q: PreparedQuery;
  exclude: number;
  candidates?: Uint32Array;
}

export class QueryScorer {
  /** The kernel's scorer over `a` (it holds its own scratch space), or null. */
  private readonly native: object | null;
  /** The TypeScript loop, where there is no compiled kernel. */
  private readonly fallback: TypeScriptKernel | null;
  /** For fixed candidates. */
  private readonly heap: TopKHeap;

  /**
   * @param tableMinPostings postings count from which a term is scored via its table (tests force 0 or ∞).
   * @param blockDocs documents per accumulator block (tests force small blocks); default: the kernel's or
   * the TypeScript loop's own (blocks change speed only, never a score).
   * @param kernel the compiled kernel, or null for the TypeScript loop (tests compare both).
   */
  constructor(
    private readonly a: ScoringArrays,
    tableMinPostings = TABLE_MIN_POSTINGS,
    blockDocs?: number,
    private readonly kernel: Bm25Kernel | null = bm25Kernel(),
  ) {
    this.native = kernel && kernel.createScorer(a, tableMinPostings, blockDocs ?? KERNEL_BLOCK_DOCS, blockDocs ?? LANE_BLOCK_DOCS);
    this.fallback = this.native === null ? new TypeScriptKernel(a, tableMinPostings, blockDocs ?? TS_BLOCK_DOCS) : null;
    this.heap = new TopKHeap(a.tieKey);
  }

  /**
   * Top k documents for a query. `exclude` = a corpus index never returned (the query article itself, or -1).
   * With `candidates`, only those documents are ranked — all of them, score 0 when no term matches — under
   * the pool's statistics (MDCR-style scoring of fixed candidates).
   */
  search(q: PreparedQuery, k: number, exclude = -1, candidates?: Uint32Array): TopK {
    const poolDocs = this.a.poolDocs;
    if (!poolDocs) return this.rank(q, k, exclude, candidates);
    if (candidates) throw new Error('QueryScorer: fixed candidates are searched over the corpus numbering, not a pool slice');
    const top = this.rank(q, k, exclude < 0 ? -1 : slicePosition(poolDocs, exclude));
    for (let i = 0; i < top.docs.length; i++) top.docs[i] = poolDocs[top.docs[i]];
    return top;
  }

  /**
   * search() for each query, the same lists: with the compiled kernel, queries without fixed candidates are
   * scored in groups of its lanes (queryGroup()), each posting of the group's terms read once for the group.
   */
  searchMany(queries: ScorerQuery[], k: number): TopK[] {
    const out: TopK[] = new Array(queries.length);
    const grouped: number[] = [];
    queries.forEach((x, i) => {
      if (this.native !== null && !x.candidates) grouped.push(i);
      else out[i] = this.search(x.q, k, x.exclude, x.candidates);
    });
    if (grouped.length === 0) return out;
    const poolDocs = this.a.poolDocs;
    const counts = Uint32Array.from(grouped, (i) => queries[i].q.terms.length);
    let total = 0;
    for (const c of counts) total += c;
    const terms = new Uint32Array(total);
    const weights = new Float32Array(total);
    const excludes = new Float64Array(grouped.length);
    let at = 0;
    grouped.forEach((i, g) => {
      const { q, exclude } = queries[i];
      terms.set(q.terms, at);
      weights.set(q.weights, at);
      at += q.terms.length;
      excludes[g] = poolDocs && exclude >= 0 ? slicePosition(poolDocs, exclude) : exclude;
    });
    const lists = this.kernel!.searchBatch(this.native!, terms, weights, counts, k, excludes);
    if (lists === null) throw damagedIndex();
    grouped.forEach((i, g) => {
      const [docs, scores] = lists[g];
      if (poolDocs) for (let r = 0; r < docs.length; r++) docs[r] = poolDocs[docs[r]];
      out[i] = { docs, scores };
    });
    return out;
  }

  /** search() in the arrays' own numbering. */
  private rank(q: PreparedQuery, k: number, exclude: number, candidates?: Uint32Array): TopK {
    if (candidates) return rankCandidates(this.a, this.heap, q, k, exclude, candidates);
    if (this.native === null) return this.fallback!.search(q, k, exclude);
    const r = this.kernel!.search(this.native, q.terms, q.weights, k, exclude);
    if (r === null) throw damagedIndex();
    return { docs: r[0], scores: r[1] };
  }
}

/** What the kernel's null answer means. */
function damagedIndex(): CitebenchError {
  return new CitebenchError('bm25 index: a posting lacks its stored frequency (damaged index files): rebuild the index');
}
