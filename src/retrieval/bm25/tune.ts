/**
 * `citebench bm25 tune`: grid search of BM25's k1 and b on a user's own queries and qrels file (relevant papers
 * outside the corpus included), with the run's tie rule (util/best.ts); a config's tuning is experiments/tune.ts.
 * Grid search of BM25's k1 and b on a validation split (the paper tunes both on validation sets built like
 * the test sets). The objective is pluggable — any `score(run) => number`; `evalObjective` builds one from the
 * eval module (trec_eval semantics, ties by docno via the corpus idOrder).
 */
import type { RankedLists, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import type { Bm25Index } from './index-format.ts';
import { Bm25Retriever } from './retriever.ts';
import { evaluate } from '../../eval/evaluate.ts';
import { parseMeasure } from '../../eval/registry.ts';
import type { QrelsCsr } from '../../eval/types.ts';
import { bestOf } from '../../util/best.ts';
import { CitebenchError } from '../../util/errors.ts';

interface GridPoint {
  k1: number;
  b: number;
  score: number;
}

interface TuneResult {
  best: GridPoint;
  grid: GridPoint[];
}

interface TuneArgs {
  index: Bm25Index;
  texts: TextSource;
  request: SearchRequest;
  k1: number[];
  b: number[];
  accurate?: boolean;
  tieKey?: Uint32Array;
  threads?: number;
  score: (run: RankedLists) => number;
  onPoint?: (p: GridPoint) => void;
}

/** Evaluate every (k1, b) of the grid; the best is the highest score, earlier grid points winning ties. */
export async function tuneBm25(args: TuneArgs): Promise<TuneResult> {
  if (!args.k1.length || !args.b.length) throw new CitebenchError('tuning grid: give at least one k1 and one b');
  const grid: GridPoint[] = [];
  for (const k1 of args.k1) {
    for (const b of args.b) {
      if (!(k1 >= 0) || !(b >= 0 && b <= 1)) throw new CitebenchError(`tuning grid: k1 must be ≥ 0 and b in [0, 1] (got k1=${k1}, b=${b})`);
      const r = new Bm25Retriever(args.index, args.texts, { params: { k1, b, accurate: args.accurate ?? false }, tieKey: args.tieKey, threads: args.threads });
      const p = { k1, b, score: args.score(await r.search(args.request)) };
      grid.push(p);
      args.onPoint?.(p);
    }
  }
  return { best: bestOf(grid), grid };
}

/** Objective from the eval module: the mean of one trec_eval measure (e.g. "map", "ndcg", "recall_10"). */
export function evalObjective(qrels: QrelsCsr, measure: string, docOrder?: Uint32Array): (run: RankedLists) => number {
  const measures = parseMeasure(measure);
  if (measures.length !== 1) throw new CitebenchError(`tuning measure '${measure}' must name exactly one measure`);
  return (run) => evaluate({ qrels, run, measures, docOrder }).summary[0];
}
