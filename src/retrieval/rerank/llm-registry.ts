/**
 * The LLM rerankers citebench knows by name: bare causal-LM folders scored with their model card's recipe
 * (causal-lm.ts). A named one lives in `<models-dir>/<name>/`, downloaded from its hub repo with --allow-remote.
 */

export interface KnownLlmReranker {
  name: string;
  /** The hub repo. */
  hfId: string;
  /** The recipe its card gives (the only one so far: the Qwen3-Reranker prompt and P("yes")). */
  recipe: 'qwen3-reranker';
  /** Token budget of prefix + pair + suffix: the card's max_length. */
  maxLength: number;
  /** Parameters (millions). */
  params: number;
  note: string;
}

export const LLM_RERANKERS: readonly KnownLlmReranker[] = (['0.6B', '4B', '8B'] as const).map((size) => ({
  name: `qwen3-reranker-${size.toLowerCase()}`,
  hfId: `Qwen/Qwen3-Reranker-${size}`,
  recipe: 'qwen3-reranker',
  maxLength: 8192,
  params: { '0.6B': 596, '4B': 4022, '8B': 7568 }[size],
  note: `Qwen3 causal-LM reranker (Zhang et al. 2025): P("yes") after the card's prompt, with citebench's citation instruction unless --instruction; bfloat16 weights on the hub${size === '0.6B' ? '' : ', sharded'}; beyond the paper`,
}));

export function knownLlmReranker(name: string): KnownLlmReranker | undefined {
  return LLM_RERANKERS.find((m) => m.name === name);
}
