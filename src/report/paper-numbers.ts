/**
 * The paper's own numbers (Medić & Šnajder 2022, Tables 1–4 and 6–8, Table 5's field abbreviations), carried in
 * the repository as paper-numbers.json beside this file: values in % exactly as printed, transcribed from the
 * paper's text. Reports print them beside ours; nothing here is computed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CitebenchError } from '../util/errors.ts';

/** The paper's model names, lower-cased, in the order its tables list them. */
export type PaperModel = 'bm25' | 'scibert' | 'specter' | 'scincl' | 'aspire-bm' | 'aspire-cs';
export type FieldAbbrev =
  | 'Art' | 'Bio' | 'Bus' | 'Ch' | 'CS' | 'Eco' | 'Eng' | 'ES' | 'Geog' | 'Geol' | 'His' | 'MS' | 'Mat' | 'Med'
  | 'Phi' | 'Phy' | 'PS' | 'Psy' | 'Soc';
export type PoolLabel = '200k' | '500k' | '1M' | '2M';
export type CandidateType = 'bm25' | 'specter' | 'scincl' | 'graph' | 'most_cited' | 'random';

/** Per field plus the table's AVG column. */
export type PerField = Record<FieldAbbrev | 'AVG', number>;
export interface MapR5 { MAP: number; 'R@5': number }

export interface PaperNumbers {
  source: { paper: string; code: string; units: string; tables: Record<string, string>; transcribed_from: string };
  /** Table 5: abbreviation → MAG field name. */
  fields: Record<FieldAbbrev, string>;
  /** Table 1 (§3.1): model → pool size → MAP / nDCG / R@30; ASPIRE is its BioMed variant. */
  table1_dataset_level: { note: string; values: Partial<Record<PaperModel, Record<PoolLabel, { MAP: number; nDCG: number; 'R@30': number }>>> };
  /** Tables 2, 7, 8 (§3.2, App. A.4): model → field → MAP / nDCG / R@30. */
  table2_field_level_MAP: Record<PaperModel, PerField>;
  table7_field_level_nDCG: Record<PaperModel, PerField>;
  'table8_field_level_R@30': Record<PaperModel, PerField>;
  /** Table 3 (§4.3): MDCR, model → field (and AVG) → MAP / R@5. */
  table3_mdcr: Record<PaperModel, Record<FieldAbbrev | 'AVG', MapR5>>;
  /** Table 4 (§4.4): model → candidate type → MAP / R@5, and the AVG row over models. */
  table4_candidate_types: Record<PaperModel, Record<CandidateType, MapR5>>;
  table4_candidate_types_AVG: { note: string; values: Record<CandidateType, MapR5> };
  /** Table 6 (App. A.3): SciDocs "Cite", as reported by prior work. */
  table6_scidocs_cite: { note: string; values: Record<'scibert' | 'specter' | 'scincl' | 'aspire-ts', { MAP: number; nDCG: number }> };
}

/** The repository's copy. */
export const PAPER_NUMBERS_FILE = fileURLToPath(new URL('./paper-numbers.json', import.meta.url));

/** The paper's numbers: the repository's file, or another file of the same layout. */
export function loadPaperNumbers(path?: string): PaperNumbers {
  const file = path ?? PAPER_NUMBERS_FILE;
  if (!existsSync(file)) throw new CitebenchError(`${file}: paper numbers file not found`);
  let data: PaperNumbers;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CitebenchError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (!data || typeof data !== 'object' || !data.table1_dataset_level?.values) {
    throw new CitebenchError(`${file}: no table1_dataset_level.values: not a paper numbers file`);
  }
  return data;
}
