/**
 * The results format: what the large-scale runner writes (one JSON file per cell) and the reports read.
 * It lives here, below experiments/, so report/ renders results files without importing the runner.
 */
import type { Field } from '../corpus/fields.ts';

export interface CellResult {
  model: string;
  protocol: 'dataset' | 'field';
  field: Field | null;
  poolSize: number;
  /** Actual pool size (smaller than poolSize only for an exhausted field-cited set). */
  poolMembers: number;
  repeat: number;
  queries: number;
  /** Measure name (as given in the config) → mean over queries. */
  means: Record<string, number>;
  /** Measure name → per-query values, in query order (for significance tests). */
  perQuery: Record<string, number[]>;
}

/** One (model, field, pool size) row: the mean over repeats the paper's tables print. */
export interface MeanRow {
  model: string;
  field: Field | null;
  poolSize: number;
  repeats: number;
  means: Record<string, number>;
}
