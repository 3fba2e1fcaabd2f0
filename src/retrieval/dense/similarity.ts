/**
 * How two article vectors are compared: the distances citebench ranks by, what each run score is, and which
 * search kernel computes it. The paper's encoders use `l2` (−squared L2, as faiss IndexFlatL2 reports it) or
 * `ip`; sentence-transformers folders name theirs in config_sentence_transformers.json `similarity_fn_name`,
 * and their scores are what `SentenceTransformer.similarity` returns (sentence_transformers/util/similarity.py):
 * - cosine: cos_sim = the inner product of the L2-normalised vectors (F.normalize, eps 1e-12);
 * - dot: the inner product (citebench's `ip`);
 * - euclidean: −torch.cdist(a, b, p=2) = −L2 distance (SciRepEval's MDCR evaluation scores SPECTER2 this way:
 *   evaluation/evaluator.py `IREvaluator.retrieval`, −sklearn euclidean_distances);
 * - manhattan: −torch.cdist(a, b, p=1) = −L1 distance.
 */
import { CitebenchError } from '../../util/errors.ts';

/** A search kernel's score: `l2` = −squared L2 distance, `ip` = inner product (hits.ts, search.ts, hnsw.ts). */
export type Metric = 'l2' | 'ip';

/** What a run ranks and scores by. */
export type Distance = 'l2' | 'ip' | 'cosine' | 'euclidean' | 'manhattan';

export const DISTANCES: readonly Distance[] = ['l2', 'ip', 'cosine', 'euclidean', 'manhattan'];

/** `dot` is sentence-transformers' name of the inner product. */
const ALIASES: Record<string, Distance> = { dot: 'ip' };

export const DISTANCE_HELP = 'l2 (−squared L2), ip or dot (inner product), cosine, euclidean (−L2), manhattan (−L1)';

/** A distance name as a user or a folder writes it, or undefined when it is none. */
export function distanceOf(v: string): Distance | undefined {
  return (DISTANCES as readonly string[]).includes(v) ? (v as Distance) : ALIASES[v];
}

/** `v` as a distance, or a CitebenchError naming `what` (a flag, a config key). */
export function parseDistance(v: string, what: string): Distance {
  const d = distanceOf(v);
  if (!d) throw new CitebenchError(`${what} must be one of ${DISTANCE_HELP}; got '${v}'`);
  return d;
}

/**
 * How a distance is searched: by a Gemm kernel (`metric`), over L2-normalised vectors for cosine, with the
 * kernel's score mapped to the run's (euclidean: −√(squared distance), a monotone map, so the ranking is l2's);
 * manhattan has a kernel of its own (l1-search.ts).
 */
export function kernelOf(d: Distance): { metric: Metric; normalize: boolean; score?: (s: number) => number } | 'l1' {
  switch (d) {
    case 'l2':
    case 'ip':
      return { metric: d, normalize: false };
    case 'cosine':
      return { metric: 'ip', normalize: true };
    case 'euclidean':
      return { metric: 'l2', normalize: false, score: (s) => -Math.sqrt(Math.max(0, -s)) };
    case 'manhattan':
      return 'l1';
  }
}

/**
 * Rows of `v` (n × d) scaled in place to unit L2 norm as torch.nn.functional.normalize does (x / max(‖x‖, 1e-12));
 * the norm is summed in float64.
 */
export function normalizeRowsInPlace(v: Float32Array, d: number): Float32Array {
  for (let o = 0; o < v.length; o += d) {
    let s = 0;
    for (let j = 0; j < d; j++) s += v[o + j] * v[o + j];
    const n = Math.max(Math.sqrt(s), 1e-12);
    for (let j = 0; j < d; j++) v[o + j] = v[o + j] / n;
  }
  return v;
}
