/**
 * Causal-LM rerankers (a sentence-transformers CrossEncoder folder with a LogitScore module, the Qwen3-Reranker
 * recipe): not built in this version. load.ts sends such folders here, so a user gets one line, not a wrong score.
 */
import { CitebenchError } from '../../util/errors.ts';
import type { PairScorer } from './pair-scorer.ts';
import type { RerankerOptions } from './options.ts';

export async function loadCausalReranker(dir: string, _opts: RerankerOptions): Promise<PairScorer> {
  throw new CitebenchError(`${dir}: causal-LM rerankers are not built in this version`);
}
