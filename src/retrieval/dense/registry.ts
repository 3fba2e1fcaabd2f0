/**
 * The encoders citebench knows by name: the paper's (Medić & Šnajder 2022, §3), SPECTER2, and today's decoder
 * embedders (Qwen3-Embedding, EmbeddingGemma, e5-mistral), each with the hub repo it is downloaded from, its
 * pooling and distance as its paper or model card uses them. A named model lives in `<models-dir>/<folder>/`; a
 * SPECTER2 task adapter in `<models-dir>/ORG--NAME/` of its repo. A sentence-transformers folder's own settings
 * (pooling, modules, similarity, prompts, length) win over the entry's, except the entry's `presets`: what
 * citebench sets for citation recommendation over the folder (a config's or a flag's value wins over both).
 */
import type { Pooling } from './pooling.ts';
import type { RolePrompts } from './prompts.ts';
import type { Distance } from './similarity.ts';

export interface ModelOptions {
  pooling: Pooling;
  distance: Distance;
  /** Token budget including the special tokens; longer inputs are truncated at the end. */
  maxLength: number;
  /** ASPIRE only: which hidden states are averaged per token. */
  layers?: 'all' | 'last';
  /** Matryoshka: keep the first N dimensions of the final vector (over the folder's truncate_dim). */
  truncateDim?: number;
}

export interface KnownModel extends ModelOptions {
  name: string;
  /** The hub repo of the (base) model. */
  hfId: string;
  /** Folder under the models dir (default: the name); models on one base share it. */
  folder?: string;
  /** Hub repo of a task adapter (adapters library format) added to the base model. */
  adapter?: string;
  /** Settings over the folder's own (docs/dense.md, "Today's decoder embedders"). */
  presets?: { maxLength?: number; prompts?: RolePrompts };
  /** Parameters (millions), and those a token passes through (without the embedding table): the dry run's encoding price. */
  params?: number;
  computeParams?: number;
  /** Dimensions of its vectors (the dry run's search and memory price). */
  dim?: number;
  /**
   * Encoding rate on the 2-core development machine, tokens/s in float32 and int8 (docs/benchmarks.md, "Today's
   * decoder embedders"): measured at the model's shape for Qwen3-Embedding-0.6B and EmbeddingGemma-300m; for the
   * larger models Qwen3-0.6B's rate scaled by the parameters a token passes through (`estimated`).
   */
  encodeRate?: { fp32: number; int8: number; estimated?: boolean };
  note: string;
}

/**
 * The instruction citebench gives Qwen-style embedders for citation recommendation (their cards: queries carry
 * `Instruct: {task}\nQuery:`, documents nothing), modelled on the SCIDOCS instruction of Qwen3-Embedding's MTEB
 * evaluation for a query that is a whole article. A config's `prompts:` replaces it.
 */
export const CITATION_TASK = 'Given the title and abstract of a scientific paper, retrieve the titles and abstracts of papers that it cites';

/** Qwen3-Embedding-0.6B's measured encoding rate (tokens/s, 2 cores), and a larger decoder's estimated from it. */
const QWEN3_06B_RATE = { fp32: 107, int8: 256 };
const scaledRate = (computeParams: number) => ({ fp32: (QWEN3_06B_RATE.fp32 * 440) / computeParams, int8: (QWEN3_06B_RATE.int8 * 440) / computeParams, estimated: true });

/** The paper's protocol encodes title and abstract within 512 tokens; the LLM embedders' folders allow up to 32 k. */
const DECODER_PRESETS = { maxLength: 512 } as const;

/** SciRepEval's MDCR evaluation scores SPECTER2 by −Euclidean distance (evaluation/evaluator.py IREvaluator.retrieval). */
const SPECTER2 = { pooling: 'cls', distance: 'euclidean', maxLength: 512 } as const;

export const KNOWN_MODELS: KnownModel[] = [
  {
    name: 'scibert',
    hfId: 'allenai/scibert_scivocab_uncased',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'masked-LM baseline; paper: final-layer [CLS], Faiss exact search (no distance stated; L2 like the TAEs)',
  },
  {
    name: 'specter',
    hfId: 'allenai/specter',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'trained with a triplet loss on L2 distance between [CLS] vectors (Cohan et al. 2020)',
  },
  {
    name: 'scincl',
    hfId: 'malteos/scincl',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'SPECTER objective (L2 triplet loss) with graph-embedding negatives (Ostendorff et al. 2022)',
  },
  {
    name: 'aspire-biomed',
    hfId: 'allenai/aspire-contextualsentence-singlem-biomed',
    pooling: 'aspire',
    layers: 'all',
    distance: 'l2',
    maxLength: 512,
    note: 'ts-ASPIRE: contextual sentence vectors; pair score = best sentence pair (min L2 distance)',
  },
  {
    name: 'aspire-compsci',
    hfId: 'allenai/aspire-contextualsentence-singlem-compsci',
    pooling: 'aspire',
    layers: 'all',
    distance: 'l2',
    maxLength: 512,
    note: 'ts-ASPIRE, computer-science variant',
  },
  {
    name: 'specter2-base',
    hfId: 'allenai/specter2_base',
    ...SPECTER2,
    note: 'SPECTER2 base model without a task adapter (Singh et al. 2023); final-layer [CLS] as its model card; beyond the paper',
  },
  {
    name: 'specter2',
    hfId: 'allenai/specter2_base',
    folder: 'specter2-base',
    adapter: 'allenai/specter2',
    ...SPECTER2,
    note: 'SPECTER2 base + its proximity adapter (the model card\'s embedding for citation recommendation); beyond the paper',
  },
  {
    name: 'specter2-aug2023refresh-base',
    hfId: 'allenai/specter2_aug2023refresh_base',
    ...SPECTER2,
    note: 'SPECTER2 base pre-trained on newer papers (Aug 2023 refresh; the model card: "for benchmarking, continue using the current version")',
  },
  {
    name: 'specter2-aug2023refresh',
    hfId: 'allenai/specter2_aug2023refresh_base',
    folder: 'specter2-aug2023refresh-base',
    adapter: 'allenai/specter2_aug2023refresh',
    ...SPECTER2,
    note: 'the Aug 2023 refresh base + its proximity adapter',
  },
  ...(['0.6B', '4B', '8B'] as const).map(
    (size): KnownModel => ({
      name: `qwen3-embedding-${size.toLowerCase()}`,
      hfId: `Qwen/Qwen3-Embedding-${size}`,
      pooling: 'lasttoken',
      distance: 'cosine',
      maxLength: 512,
      presets: { ...DECODER_PRESETS, prompts: { query: `Instruct: ${CITATION_TASK}\nQuery:`, document: '' } },
      params: { '0.6B': 596, '4B': 4022, '8B': 7568 }[size],
      computeParams: { '0.6B': 440, '4B': 3633, '8B': 6946 }[size],
      dim: { '0.6B': 1024, '4B': 2560, '8B': 4096 }[size],
      encodeRate: size === '0.6B' ? QWEN3_06B_RATE : scaledRate({ '0.6B': 440, '4B': 3633, '8B': 6946 }[size]),
      note: `Qwen3 decoder embedder (Zhang et al. 2025): last token, normalised, cosine; queries with citebench's citation instruction, documents without (the card's format); bfloat16 weights on the hub${size === '0.6B' ? '' : ', sharded'}; beyond the paper`,
    }),
  ),
  {
    name: 'embeddinggemma-300m',
    hfId: 'google/embeddinggemma-300m',
    pooling: 'mean',
    distance: 'cosine',
    maxLength: 512,
    presets: { ...DECODER_PRESETS },
    params: 303,
    computeParams: 101,
    dim: 768,
    encodeRate: { fp32: 396, int8: 727 },
    note: 'Gemma 3 with bidirectional attention (EmbeddingGemma): mean pooling, two Dense modules, normalised; the folder\'s retrieval prompts for both roles; gated on the hub (accept the licence, set $HF_TOKEN); beyond the paper',
  },
  {
    name: 'e5-mistral-7b-instruct',
    hfId: 'intfloat/e5-mistral-7b-instruct',
    pooling: 'lasttoken',
    distance: 'cosine',
    maxLength: 512,
    presets: { ...DECODER_PRESETS, prompts: { query: `Instruct: ${CITATION_TASK}\nQuery: `, document: '' } },
    params: 7111,
    computeParams: 6980,
    dim: 4096,
    encodeRate: scaledRate(6980),
    note: 'Mistral decoder embedder (Wang et al. 2024): last token, normalised, cosine; queries with citebench\'s citation instruction in the card\'s format, documents without; beyond the paper',
  },
];

export function knownModel(name: string): KnownModel | undefined {
  return KNOWN_MODELS.find((m) => m.name === name);
}

/**
 * The rerankers citebench knows by name (`citebench rerank`, a rerank model's crossEncoder), each downloaded with
 * --allow-remote from its hub repo into `<models-dir>/<name>/` (citebench-download.json records the commit), with
 * its model card's settings over the folder's: the length the card scores with and the activation its usage
 * example returns (a config's or a flag's value wins over both).
 */
export interface KnownReranker {
  name: string;
  hfId: string;
  /** Folder under the models dir (default: the name). */
  folder?: string;
  /** cross-encoder: a sequence-classification head (rerank/load.ts); causal-lm: yes/no logits of an LLM (rerank/causal-lm.ts). */
  kind: 'cross-encoder' | 'causal-lm';
  /** Token budget of a pair, with the special tokens. */
  maxLength?: number;
  /** The card's score: the activation applied to the logit (over the folder's). */
  activation?: 'Sigmoid' | 'Identity';
  /** Millions of the parameters a token passes through (embeddings aside): the dry run's price of a pair. */
  computeParams: number;
  note: string;
}

/**
 * What re-scoring one (query, candidate) pair costs on the development machine's CPU, in seconds: the pair's tokens
 * (two articles of 239 tokens, the LLM recipe's ~70 of prompt) at the rate measured for Qwen3-0.6B's 440 M compute
 * parameters (107 tokens/s float32, 256 int8; docs/benchmarks.md) scaled by the reranker's compute parameters —
 * an estimate, as the embedders' scaled rates are.
 */
export function rerankPairSeconds(known: KnownReranker, quantized: boolean): number {
  const tokens = 2 * 239 + (known.kind === 'causal-lm' ? 70 : 0);
  return tokens / ((quantized ? QWEN3_06B_RATE.int8 : QWEN3_06B_RATE.fp32) * 440 / known.computeParams);
}

export const KNOWN_RERANKERS: KnownReranker[] = [
  {
    name: 'ms-marco-minilm-l6-v2',
    hfId: 'cross-encoder/ms-marco-MiniLM-L6-v2',
    kind: 'cross-encoder',
    maxLength: 512,
    activation: 'Identity',
    computeParams: 11,
    note: 'BERT (MiniLM-L6, hidden 384) trained on MS MARCO passage ranking; the card\'s CrossEncoder.predict returns the raw logit (its config sets Identity); English',
  },
  {
    name: 'bge-reranker-v2-m3',
    hfId: 'BAAI/bge-reranker-v2-m3',
    kind: 'cross-encoder',
    maxLength: 512,
    activation: 'Identity',
    computeParams: 302,
    note: 'XLM-RoBERTa-large (BGE-M3) reranker, multilingual; the card\'s compute_score returns the raw logit (normalize=True would apply a sigmoid), max_length 512',
  },
  {
    name: 'gte-reranker-modernbert-base',
    hfId: 'Alibaba-NLP/gte-reranker-modernbert-base',
    kind: 'cross-encoder',
    maxLength: 8192,
    activation: 'Sigmoid',
    computeParams: 111,
    note: 'ModernBERT-base reranker (8192 tokens); the card\'s CrossEncoder usage returns sigmoid scores',
  },
  // Bare Qwen3ForCausalLM folders scored by their card's recipe (rerank/causal-lm.ts): P("yes") after the card's
  // prompt, with citebench's citation instruction unless one is given; bfloat16 on the hub (4B and 8B sharded).
  ...(['0.6B', '4B', '8B'] as const).map((size): KnownReranker => ({
    name: `qwen3-reranker-${size.toLowerCase()}`,
    hfId: `Qwen/Qwen3-Reranker-${size}`,
    kind: 'causal-lm',
    maxLength: 8192,
    computeParams: { '0.6B': 440, '4B': 3633, '8B': 6946 }[size],
    note: `Qwen3 causal-LM reranker (${{ '0.6B': 596, '4B': 4022, '8B': 7568 }[size]} M parameters): P("yes") of the model card's prompt, max_length 8192; beyond the paper`,
  })),
];

export function knownReranker(name: string): KnownReranker | undefined {
  return KNOWN_RERANKERS.find((m) => m.name === name);
}
