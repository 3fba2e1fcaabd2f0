/**
 * The compiled search kernel (native/bm25-kernel.cc, built by `npm ci` through node-gyp into build/Release):
 * QueryScorer's whole-pool search, bit-identical to the TypeScript loop and several times faster. Where it was
 * not built (no compiler at install time) or does not load, search falls back to TypeScript after a one-line
 * notice. CITEBENCH_BM25_ADDON=off uses the TypeScript search without a notice; any other value is the path of
 * the addon to load instead of the built one.
 */
import { builtPath, loadAddon } from '../../util/native-addon.ts';

export interface Bm25Kernel {
  /** Queries searchBatch() scores together (a group); more are taken a group at a time. */
  lanes: number;
  /** `a`: scoring-arrays.ts's ScoringArrays. */
  createScorer(a: object, tableMinPostings: number, blockDocs: number, laneBlockDocs: number): object;
  /** [docs, scores] best first; null when a posting's stored frequency is missing (damaged index). */
  search(scorer: object, terms: Uint32Array, weights: Float32Array, k: number, exclude: number): [Uint32Array, Float32Array] | null;
  /**
   * Several queries at once (query i: the next counts[i] of terms and weights), the same lists as search() gives
   * each; null as search().
   */
  searchBatch(scorer: object, terms: Uint32Array, weights: Float32Array, counts: Uint32Array, k: number, excludes: Float64Array): [Uint32Array, Float32Array][] | null;
}

/** Set once the notice was printed, so worker threads and child processes (which inherit it) stay quiet. */
const NOTICE_SHOWN = 'CITEBENCH_BM25_NOTICE_SHOWN';

/** The kernel, or null (TypeScript search). Loaded once per thread. */
export function bm25Kernel(): Bm25Kernel | null {
  const setting = process.env.CITEBENCH_BM25_ADDON;
  const { addon, why } = loadAddon<Bm25Kernel>('citebench_bm25', setting);
  if (!addon && why !== 'off' && !process.env[NOTICE_SHOWN]) {
    process.env[NOTICE_SHOWN] = '1';
    process.stderr.write(`notice: the compiled BM25 kernel ${why} (${setting || builtPath('citebench_bm25')}); searching with the slower TypeScript kernel (same results). Build it with \`npx node-gyp rebuild\` (needs g++ and make).\n`);
  }
  return addon;
}
