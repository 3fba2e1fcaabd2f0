/**
 * Published numbers of other work that a report shows beside a run as references, never as differences to
 * ours: each with the source it is quoted from. They are not citebench's results and never enter a mark.
 */
import type { ModelEntry } from './results.ts';

export interface PublishedTable {
  /** Where the numbers are quoted from. */
  source: string;
  /** What they were measured on. */
  on: string;
  columns: string[];
  rows: { model: string; values: number[] }[];
}

/**
 * MDCR (MAP, R@5 ×100) from the allenai/specter2 model card on the Hugging Face hub: the published MDCR test set,
 * the one of the paper's Table 3.
 */
export const SPECTER2_CARD_MDCR: PublishedTable = {
  source: 'the allenai/specter2 model card (Hugging Face hub)',
  on: 'the published MDCR test set (the paper\'s Table 3)',
  columns: ['MAP', 'R@5'],
  rows: [
    { model: 'BM25', values: [33.7, 28.5] },
    { model: 'SPECTER', values: [30.6, 25.5] },
    { model: 'SciNCL', values: [32.6, 27.3] },
    { model: 'SciRepEval-Adapters', values: [35.3, 29.6] },
    { model: 'SPECTER2 Base', values: [38.0, 32.4] },
    { model: 'SPECTER2-Adapters', values: [38.4, 33.0] },
  ],
};

/** Whether a run has a SPECTER2 model (a registry name or hub id of the family), by its settings. */
export function hasSpecter2(models: readonly ModelEntry[]): boolean {
  return models.some((m) => /specter2/i.test(String(m.settings.model ?? '')));
}
