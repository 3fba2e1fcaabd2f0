/**
 * The encoders citebench knows by name: the paper's (Medić & Šnajder 2022, §3) and SPECTER2, each with the hub
 * repo it is downloaded from, its pooling and distance as its paper or model card uses them. A named model lives
 * in `<models-dir>/<folder>/`; a SPECTER2 task adapter in `<models-dir>/ORG--NAME/` of its repo.
 */
import type { Pooling } from './pooling.ts';
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
  note: string;
}

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
];

export function knownModel(name: string): KnownModel | undefined {
  return KNOWN_MODELS.find((m) => m.name === name);
}
