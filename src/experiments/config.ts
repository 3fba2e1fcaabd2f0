/**
 * Experiment configurations: one YAML file names the corpus, the models and the protocols of a run
 * (`citebench run CONFIG`). Sizes are written as the paper sizes them and `scale` shrinks them all by the same
 * factor, so every ratio stays the paper's (`scale: 1` is the paper's full setting). Every problem is reported
 * with the file, line and key at fault (InputError), never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isMap } from 'yaml';
import { parseSchemeField, schemeFieldHint, schemeFields, type FieldName, type FieldScheme } from '../corpus/fields.ts';
import { storeFieldScheme } from '../corpus/store.ts';
import { SYNTH_PROFILES, type SynthProfile } from '../corpus/synth.ts';
import { parseMeasure } from '../eval/registry.ts';
import { CORRECTIONS, type Correction } from '../eval/statistics.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import { hashString } from '../util/rng.ts';
import { posInt, Reader } from './config-reader.ts';
import { entryOf, parseModel, type ModelConfig } from './kinds/index.ts';

export type { ModelConfig } from './kinds/index.ts';
export { DEFAULT_TUNE_GRID } from './kinds/index.ts';

/** transductive: the paper's protocol; inductive: Goyal et al. 2026 §3.1 (disjoint, strictly earlier candidates). */
export type Setting = 'transductive' | 'inductive';

export interface DatasetProtocolConfig {
  /** Paper-sized query count (3,800), scaled. */
  queries: number;
  /** Paper-sized pool sizes (200 k … 2 M), scaled. */
  pools: number[];
  repeats: number;
}

export interface FieldProtocolConfig {
  /** Paper-sized queries per field (200), scaled. */
  queries: number;
  /** Paper-sized pool (100 k), scaled. */
  pool: number;
  repeats: number;
  /** Fields of the corpus's scheme (corpus.fieldScheme): 'all' in the file is every one, in the scheme's order. */
  fields: FieldName[];
}

export interface MdcrProtocolConfig {
  positives: number;
  perType: number;
  /** Depth of each model's list that model-based negatives are drawn from (paper 200). */
  modelDepth: number;
  /** The field's most-cited articles that "most cited" negatives are drawn from (paper 200). */
  mostCited: number;
  /** How many models give model-based negatives (paper 3, the lowest average Jaccard). */
  models: number;
}

/** A BEIR-layout retrieval task (corpus/beir.ts) every model runs on, beside the paper's protocols. */
export interface BeirProtocolConfig {
  /** The task's folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv. */
  path: string;
  /** Its qrels split (qrels/<split>.tsv); run as the task's test cells. */
  split: string;
  /** Name in files and tables (default: the folder's name, e.g. scidocs). */
  name: string;
}

export interface ExperimentConfig {
  name: string;
  seed: number;
  scale: number;
  /** Cache folder: corpus, store, BM25 index, embeddings (shared by runs of the same corpus). */
  work: string;
  /** Results folder of this run: resolved config, runs, qrels, cells, results.json, report. */
  results: string;
  corpus: {
    synthetic?: { articles: number; seed: number; profile?: SynthProfile }; store?: string; prefilter: 'paper';
    /**
     * The store's field scheme (its meta.json) when it is not MAG's: 'topics' for OpenAlex Topics' 26 fields.
     * Absent: MAG's 19 (a synthetic corpus, an S2ORC store, a store not built yet), so MAG configs keep their identity.
     */
    fieldScheme?: FieldScheme;
    /**
     * The release a store not built yet comes from, for the dry run's forecast only (plan.ts RELEASES): absent,
     * the raw S2ORC v2020 release. It changes no result, so it is not part of the config's identity.
     */
    from?: Release;
  };
  queryYear: number;
  /**
   * The BM25 index: 'corpus' (default), one index of the whole store, loaded once and searched with each pool's
   * statistics; 'pools', an index of each pool's own texts, built when the pool is searched — memory follows the
   * largest pool instead of the store (an OpenAlex store of ~49 M articles), for the same lists (docs/openalex.md).
   */
  bm25Index?: 'corpus' | 'pools';
  /** Files of paper ids never used as queries (the paper: SPECTER's and SciNCL's training queries). */
  excludeQueries: string[];
  /** Results per query (paper 500). */
  k: number;
  measures: string[];
  /** Validation split for tuning: paper-sized query count, drawn like the test split, disjoint from it. */
  validation: { queries: number };
  models: ModelConfig[];
  protocols: { dataset?: DatasetProtocolConfig; field?: FieldProtocolConfig; mdcr?: MdcrProtocolConfig; beir?: BeirProtocolConfig };
  /** Where named dense models live (<modelsDir>/<name>/); a missing folder is a recorded skip, not an error. */
  modelsDir?: string;
  /** A query whose ranked list comes back empty counts 0 in every mean ('zero', trec_eval -c) or fails the cell. */
  emptyLists: 'zero' | 'error';
  /** Evaluation settings, run side by side; absent = the paper's (transductive) only. See settingsOf. */
  settings?: Setting[];
  /**
   * The significance record (significance-stage.ts, docs/statistics.md): baselines (absent: the first lexical
   * model), the correction over a family (absent: holm), the randomised Tukey HSD over all models (absent: on),
   * the query attributes the per-query results are sliced by (absent: all of SLICE_ATTRIBUTES).
   */
  significance?: { baselines?: string[]; correction?: Correction; allPairs?: boolean; slices?: SliceAttribute[] };
}

export { settingsOf } from './kinds/types.ts';

/** Query attributes a run's per-query results can be sliced by (significance-stage.ts sliceLabels). */
export const SLICE_ATTRIBUTES = ['field', 'year', 'references', 'citations'] as const;
export type SliceAttribute = (typeof SLICE_ATTRIBUTES)[number];

/** Releases a store can be built from, as the dry run forecasts them (plan.ts RELEASES). */
export const RELEASE_NAMES = ['s2orc-v2020', 'openalex', 'openalex-xpac'] as const;
export type Release = (typeof RELEASE_NAMES)[number];

/** The field scheme of a config's corpus (MAG's unless its store says otherwise). */
export function fieldSchemeOf(cfg: Pick<ExperimentConfig, 'corpus'>): FieldScheme {
  return cfg.corpus.fieldScheme ?? 'mag';
}

const KNOWN_KEYS: Record<string, string[]> = {
  '': ['name', 'seed', 'scale', 'work', 'results', 'corpus', 'queryYear', 'excludeQueries', 'k', 'measures', 'validation', 'models', 'protocols', 'modelsDir', 'emptyLists', 'setting', 'significance', 'bm25Index'],
  significance: ['baselines', 'correction', 'allPairs', 'slices'],
  corpus: ['synthetic', 'store', 'prefilter', 'from'],
  'corpus.synthetic': ['articles', 'seed', 'profile'],
  validation: ['queries'],
  protocols: ['dataset', 'field', 'mdcr', 'beir'],
  'protocols.beir': ['path', 'split', 'name'],
  'protocols.dataset': ['queries', 'pools', 'repeats'],
  'protocols.field': ['queries', 'pool', 'repeats', 'fields'],
  'protocols.mdcr': ['positives', 'perType', 'modelDepth', 'mostCited', 'models'],
};
/** Overrides from the command line (`citebench reproduce --scale …`), applied after the file is read. */
export interface ConfigOverrides {
  scale?: number;
  seed?: number;
  articles?: number;
  /** Synthetic corpus profile (synth --profile): 's2orc-raw' for records shaped like the raw release. */
  profile?: SynthProfile;
  repeats?: number;
  store?: string;
  work?: string;
  results?: string;
  /** Added to the config's excludeQueries. */
  excludeQueries?: string[];
}

/**
 * Load and validate a config. Relative paths inside it (work, results, store, excludeQueries, model folders)
 * are relative to the current directory, as on the command line.
 */
export function loadConfig(path: string, overrides: ConfigOverrides = {}): ExperimentConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CitebenchError(`cannot read config ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseConfig(text, path, overrides);
}

export function parseConfig(text: string, file: string, overrides: ConfigOverrides = {}): ExperimentConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line;
    throw new InputError(file, line, undefined, `YAML syntax: ${e.message.split('\n')[0]}`);
  }
  const r = new Reader(file, doc, lines);
  if (!isMap(doc.contents)) r.fail([], 'a config is a YAML mapping (see configs/default.yaml)');
  for (const [p, allowed] of Object.entries(KNOWN_KEYS)) if (p === '' || r.has(p.split('.'))) r.checkKeys(p ? p.split('.') : [], allowed);

  const name = r.str(['name'], file.replace(/^.*\//, '').replace(/\.ya?ml$/, ''))!;
  // rngFor reads the seed as a 32-bit unsigned integer: 1.5 or 2³² + 1 would silently be another seed.
  const seedOk = (n: number) => Number.isInteger(n) && n >= 0 && n < 2 ** 32;
  if (overrides.seed !== undefined && !seedOk(overrides.seed)) throw new CitebenchError(`--seed must be an integer in [0, 2^32), got ${overrides.seed}`);
  if (overrides.repeats !== undefined && !posInt(overrides.repeats)) throw new CitebenchError(`--repeats must be a positive integer, got ${overrides.repeats}`);
  if (overrides.articles !== undefined && !posInt(overrides.articles)) throw new CitebenchError(`--articles must be a positive integer, got ${overrides.articles}`);
  const seed = overrides.seed ?? r.num(['seed'], 1, seedOk, 'an integer in [0, 2^32)');
  const scale = overrides.scale ?? r.num(['scale'], 1, (n) => n > 0 && n <= 1, 'in (0, 1]');
  if (!(scale > 0 && scale <= 1)) throw new CitebenchError(`--scale must be in (0, 1], got ${scale}`);
  const work = overrides.work ?? r.str(['work'], `data/${name}`)!;
  const results = overrides.results ?? r.str(['results'], `${work}/results`)!;

  // corpus: a store, or a synthetic corpus (paper-sized article count × scale)
  const store = overrides.store ?? r.str(['corpus', 'store']);
  let synthetic: ExperimentConfig['corpus']['synthetic'];
  if (!store) {
    if (!r.has(['corpus', 'synthetic'])) r.fail(['corpus'], 'give corpus.store (a corpus store folder) or corpus.synthetic');
    const articles = overrides.articles ?? Math.round(scale * r.num(['corpus', 'synthetic', 'articles'], undefined, posInt, 'a positive integer (paper-sized, scaled)'));
    synthetic = { articles, seed: r.num(['corpus', 'synthetic', 'seed'], seed, Number.isInteger, 'an integer') };
    const profile = overrides.profile ?? r.str(['corpus', 'synthetic', 'profile']);
    if (profile !== undefined) {
      if (!SYNTH_PROFILES.includes(profile as SynthProfile)) {
        if (overrides.profile !== undefined) throw new CitebenchError(`--profile must be one of ${SYNTH_PROFILES.join(', ')}, got '${profile}'`);
        r.fail(['corpus', 'synthetic', 'profile'], `must be one of ${SYNTH_PROFILES.join(', ')} (absent: records shaped like the prefiltered store), got '${profile}'`);
      }
      synthetic.profile = profile as SynthProfile;
    }
  }
  // The store's fields (a synthetic corpus's are MAG's): what protocols.field names are parsed against.
  const fieldScheme: FieldScheme = (store && storeFieldScheme(store)) || 'mag';
  const from = r.str(['corpus', 'from']);
  if (from !== undefined && !RELEASE_NAMES.includes(from as Release)) r.fail(['corpus', 'from'], `must be one of ${RELEASE_NAMES.join(', ')}, got '${from}'`);
  const prefilter = r.str(['corpus', 'prefilter'], 'paper');
  if (prefilter !== 'paper') r.fail(['corpus', 'prefilter'], `only 'paper' is supported (§3's four rules), got '${prefilter}'`);

  const queryYear = r.num(['queryYear'], 2019, Number.isInteger, 'a year');
  const excludeQueries = [...(r.has(['excludeQueries']) ? r.list(['excludeQueries'], (p) => r.str(p)!) : []), ...(overrides.excludeQueries ?? [])];
  const k = r.num(['k'], 500, posInt, 'a positive integer');
  const measures = r.has(['measures']) ? r.list(['measures'], (p) => r.str(p)!) : ['MAP', 'nDCG', 'R@30'];
  measures.forEach((m, i) => {
    let n = 0;
    try {
      n = parseMeasure(m).length;
    } catch (e) {
      r.fail(['measures', i], (e as Error).message);
    }
    if (n !== 1) r.fail(['measures', i], `'${m}' expands to ${n} measures; name one cutoff (e.g. R@30)`);
  });
  const scaled = (n: number) => Math.max(1, Math.round(n * scale));
  const validation = { queries: scaled(r.num(['validation', 'queries'], 3800, posInt, 'a positive integer')) };

  const models = parseModels(r);
  const modelsDir = r.str(['modelsDir']);
  const emptyLists = r.str(['emptyLists'], 'zero');
  if (emptyLists !== 'zero' && emptyLists !== 'error') r.fail(['emptyLists'], `must be zero or error, got '${emptyLists}'`);

  const bm25Index = r.str(['bm25Index'], 'corpus');
  if (bm25Index !== 'corpus' && bm25Index !== 'pools') r.fail(['bm25Index'], `must be corpus or pools, got '${bm25Index}'`);
  if (bm25Index === 'pools') {
    const why = models.map((m) => entryOf(m).needsCorpusIndex?.(m, models)).find((w) => w !== undefined);
    if (why) r.fail(['bm25Index'], `pools: ${why}; use bm25Index: corpus`);
  }

  const protocols: ExperimentConfig['protocols'] = {};
  if (r.has(['protocols', 'dataset'])) {
    const p = ['protocols', 'dataset'];
    protocols.dataset = {
      queries: scaled(r.num([...p, 'queries'], 3800, posInt, 'a positive integer')),
      pools: (r.has([...p, 'pools']) ? r.list([...p, 'pools'], (q) => r.num(q, undefined, posInt, 'a positive integer')) : [200_000, 500_000, 1_000_000, 2_000_000]).map(scaled),
      repeats: overrides.repeats ?? r.num([...p, 'repeats'], 3, posInt, 'a positive integer'),
    };
  }
  if (r.has(['protocols', 'field'])) {
    const p = ['protocols', 'field'];
    let fields = [...schemeFields(fieldScheme)] as FieldName[];
    if (r.has([...p, 'fields']) && r.raw([...p, 'fields']) !== 'all') {
      fields = r.list([...p, 'fields'], (q) => {
        const s = r.str(q)!;
        const f = parseSchemeField(fieldScheme, s) as FieldName | undefined;
        if (f) return f;
        return fieldScheme === 'mag' ? r.fail(q, `unknown MAG field '${s}' (full name or the paper's abbreviation)`) : r.fail(q, `'${s}' is not a field of this store (${store}): its fields are ${schemeFieldHint(fieldScheme)}`);
      });
    }
    protocols.field = {
      queries: scaled(r.num([...p, 'queries'], 200, posInt, 'a positive integer')),
      pool: scaled(r.num([...p, 'pool'], 100_000, posInt, 'a positive integer')),
      repeats: overrides.repeats ?? r.num([...p, 'repeats'], 3, posInt, 'a positive integer'),
      fields,
    };
  }
  if (r.has(['protocols', 'mdcr'])) {
    const p = ['protocols', 'mdcr'];
    if (!protocols.field) r.fail(p, 'MDCR is built on the field-level protocol (§4: its queries are the field-level ones): add protocols.field');
    protocols.mdcr = {
      positives: r.num([...p, 'positives'], 5, posInt, 'a positive integer'),
      perType: r.num([...p, 'perType'], 10, posInt, 'a positive integer'),
      modelDepth: r.num([...p, 'modelDepth'], 200, posInt, 'a positive integer'),
      mostCited: r.num([...p, 'mostCited'], 200, posInt, 'a positive integer'),
      models: r.num([...p, 'models'], 3, posInt, 'a positive integer'),
    };
  }
  if (r.has(['protocols', 'beir'])) {
    const p = ['protocols', 'beir'];
    const path = r.str([...p, 'path']);
    if (!path) r.fail([...p, 'path'], 'give the folder of a BEIR-layout task (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)');
    const name = r.str([...p, 'name'], path!.replace(/\/+$/, '').replace(/^.*\//, ''))!;
    if (!/^[A-Za-z0-9._-]+$/.test(name)) r.fail([...p, 'name'], `a task name is a file name (letters, digits, . _ -), got '${name}'`);
    protocols.beir = { path: path!, split: r.str([...p, 'split'], 'test')!, name };
  }
  if (!protocols.dataset && !protocols.field && !protocols.beir) r.fail(['protocols'], 'name at least one protocol: dataset, field (and mdcr), beir');
  let settings: Setting[] | undefined;
  if (r.has(['setting'])) {
    const one = (p: (string | number)[]) => {
      const v = r.str(p)!;
      if (v !== 'transductive' && v !== 'inductive') r.fail(p, `must be transductive or inductive, got '${v}'`);
      return v as Setting;
    };
    settings = Array.isArray(r.raw(['setting'])) ? r.list(['setting'], one) : [one(['setting'])];
    if (settings.length === 0 || new Set(settings).size !== settings.length) r.fail(['setting'], 'list each setting once (transductive, inductive)');
    if (protocols.mdcr && !settings.includes('transductive')) r.fail(['setting'], 'MDCR (protocols.mdcr) is built in the transductive setting: add transductive or drop mdcr');
  }
  let significance: ExperimentConfig['significance'];
  if (r.has(['significance', 'baselines'])) {
    const names = models.map((m) => m.name);
    const baselines = r.list(['significance', 'baselines'], (q) => {
      const b = r.str(q)!;
      if (!names.includes(b)) r.fail(q, `'${b}' is not a model of this config (have: ${names.join(', ')})`);
      return b;
    });
    if (baselines.length === 0 || new Set(baselines).size !== baselines.length) r.fail(['significance', 'baselines'], 'list each baseline once (at least one)');
    significance = { baselines };
  }
  if (r.has(['significance', 'correction'])) {
    const c = r.str(['significance', 'correction'])!;
    if (!(CORRECTIONS as readonly string[]).includes(c)) r.fail(['significance', 'correction'], `unknown correction '${c}' (expected one of: ${CORRECTIONS.join(', ')})`);
    significance = { ...significance, correction: c as Correction };
  }
  if (r.has(['significance', 'allPairs'])) significance = { ...significance, allPairs: r.bool(['significance', 'allPairs'], true)! };
  if (r.has(['significance', 'slices'])) {
    const slices = r.list(['significance', 'slices'], (q) => {
      const a = r.str(q)!;
      if (!(SLICE_ATTRIBUTES as readonly string[]).includes(a)) r.fail(q, `unknown query attribute '${a}' (expected one of: ${SLICE_ATTRIBUTES.join(', ')})`);
      return a as SliceAttribute;
    });
    if (new Set(slices).size !== slices.length) r.fail(['significance', 'slices'], 'list each attribute once');
    significance = { ...significance, slices };
  }
  return {
    name, seed, scale, work, results, corpus: { synthetic, store, prefilter: 'paper', ...(fieldScheme !== 'mag' ? { fieldScheme } : {}), ...(from ? { from: from as Release } : {}) }, queryYear, excludeQueries, k, measures, validation, models, protocols, modelsDir,
    emptyLists: emptyLists as 'zero' | 'error', ...(bm25Index === 'pools' ? { bm25Index } : {}), ...(settings ? { settings } : {}), ...(significance ? { significance } : {}),
  };
}

/**
 * The `models:` of a YAML text (a whole run config, or a file with only `models:` and `modelsDir:`; other keys
 * are not read), each read by its kind's entry as `citebench run` reads them.
 */
export function parseModelsOnly(text: string, file: string): { models: ModelConfig[]; modelsDir?: string } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length) throw new InputError(file, doc.errors[0].linePos?.[0]?.line, undefined, `YAML syntax: ${doc.errors[0].message.split('\n')[0]}`);
  const r = new Reader(file, doc, lines);
  if (!isMap(doc.contents)) r.fail([], 'a config is a YAML mapping with a models: section');
  return { models: parseModels(r), modelsDir: r.str(['modelsDir']) };
}

/** parseModelsOnly of a file. */
export function loadModels(path: string): { models: ModelConfig[]; modelsDir?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CitebenchError(`cannot read config ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseModelsOnly(text, path);
}

function parseModels(r: Reader): ModelConfig[] {
  const names = r.keys(['models']);
  if (names.length === 0) r.fail(['models'], 'name at least one model (e.g. `bm25: {k1: 0.9, b: 0.4}`)');
  return names.map((name) => {
    const p = ['models', name];
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) r.fail(p, `model names are used in file names: letters, digits, '.', '_', '-' only`);
    const body = r.raw(p);
    if (body !== null && (typeof body !== 'object' || Array.isArray(body))) r.fail(p, 'a model is a mapping of its settings ({} for the defaults)');
    return parseModel(r, name, names.slice(0, names.indexOf(name)));
  });
}

/**
 * The resolved config as canonical JSON (key order fixed): what the results folder records and hashes. Where
 * outputs go (work, results) is left out: the same experiment in another folder has the same identity and bytes.
 */
export function canonicalConfig(cfg: ExperimentConfig): string {
  const { work: _w, results: _r, ...what } = cfg;
  if (what.corpus.from) what.corpus = { ...what.corpus, from: undefined }; // a forecast's hint, not what is run
  return JSON.stringify(what, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => [k, v[k]])) : v), 2) + '\n';
}

export function configHash(cfg: ExperimentConfig): string {
  return hashString(canonicalConfig(cfg)).toString(16).padStart(8, '0');
}

