/**
 * Experiment configurations: one YAML file names the corpus, the models and the protocols of a run
 * (`citebench run CONFIG`). Sizes are written as the paper sizes them and `scale` shrinks them all by the same
 * factor, so every ratio stays the paper's (`scale: 1` is the paper's full setting). Every problem is reported
 * with the file, line and key at fault (InputError), never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument, isMap, isSeq, type Document, type Node } from 'yaml';
import { FIELDS, parseField, type Field } from '../corpus/fields.ts';
import { parseMeasure } from '../eval/registry.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import { hashString } from '../util/rng.ts';

export interface Bm25ModelConfig {
  kind: 'bm25';
  name: string;
  k1: number;
  b: number;
  /** Lucene's exact document lengths instead of its lossy one-byte norms. */
  accurate: boolean;
  /** Grid search of k1 and b on the validation split (paper §3.1); the chosen values replace k1/b. */
  tune?: { k1: number[]; b: number[]; measure: string };
}

export interface DenseModelConfig {
  kind: 'dense';
  name: string;
  /** Registry name (scibert, specter, scincl, aspire-bm, aspire-cs), Hugging Face id or model folder. */
  model: string;
  modelsDir?: string;
  pooling?: 'cls' | 'mean' | 'aspire';
  distance?: 'l2' | 'ip';
  layers?: 'all' | 'last';
  maxLength?: number;
  quantized: boolean;
  /** Load onnx/model_fp16.onnx (float16 compute, for GPUs) where the folder has it; else model.onnx. */
  fp16?: boolean;
  hnsw?: { M: number; efConstruction: number; efSearch: number };
}

/** One part of a scorer: a model configured above (or `cross-encoder`: the model's crossEncoder folder) and its weight. */
export interface ScorerPart {
  model: string;
  weight: number;
}

/** Nogueira et al. 2020 §3: a first stage, then T iterations of citation navigation and ranking. */
export interface NavigationModelConfig {
  kind: 'navigation';
  name: string;
  /** A model configured above: the keyword (or any) first stage. */
  first: string;
  /** k_d and k_c per iteration (length T). */
  kd: number[];
  kc: number[];
  /** Ranking phase: Σ weight · score of these models (default: the first stage's own scores). */
  scorer: ScorerPart[];
  crossEncoder?: CrossEncoderRef;
}

/** Goyal et al. 2026 §3.2: public profiles from citing articles, over a BM25 or dense model configured above. */
export interface ProfilerModelConfig {
  kind: 'profiler';
  name: string;
  base: string;
  beta: number;
  /** Sparse profiles: keep the citing part of the top N terms only (absent: all; see profiler/sparse.ts). */
  topTerms?: number;
  /** Choose β on the dataset-level validation split (like BM25's k1/b); the chosen value replaces beta. */
  tune?: { beta: number[]; measure: string };
}

/** A first stage's top `depth` re-scored by configured models and/or a cross-encoder folder. */
export interface RerankModelConfig {
  kind: 'rerank';
  name: string;
  first: string;
  depth: number;
  scorer: ScorerPart[];
  crossEncoder?: CrossEncoderRef;
}

/** An ONNX sequence-classification folder: registry name, hub id ORG/NAME (as <modelsDir>/ORG--NAME) or folder. */
export interface CrossEncoderRef {
  model: string;
  modelsDir?: string;
  quantized: boolean;
  /** As for dense models: onnx/model_fp16.onnx where the folder has it. */
  fp16?: boolean;
  maxLength?: number;
}

/** Vectors computed elsewhere (experiments/imported-model.ts): `{ embeddings: FILE, distance: l2|ip }`. */
export interface EmbeddingsModelConfig {
  kind: 'embeddings';
  name: string;
  /** SciRepEval JSONL, .npy or .safetensors (docs/dense.md, "Embeddings from Python"). */
  embeddings: string;
  /** Paper ids of a .npy / .safetensors file (default X.ids.txt beside it). */
  ids?: string;
  distance: 'l2' | 'ip';
  /** A pool article without a vector is an error instead of a counted skip. */
  strict: boolean;
  /** What the user says the vectors are (absent: imported, of unknown provenance). */
  weights?: 'trained' | 'random';
}

export type ModelConfig = Bm25ModelConfig | DenseModelConfig | NavigationModelConfig | ProfilerModelConfig | RerankModelConfig | EmbeddingsModelConfig;

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
  fields: Field[];
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

export interface ExperimentConfig {
  name: string;
  seed: number;
  scale: number;
  /** Cache folder: corpus, store, BM25 index, embeddings (shared by runs of the same corpus). */
  work: string;
  /** Results folder of this run: resolved config, runs, qrels, cells, results.json, report. */
  results: string;
  corpus: { synthetic?: { articles: number; seed: number }; store?: string; prefilter: 'paper' };
  queryYear: number;
  /** Files of paper ids never used as queries (the paper: SPECTER's and SciNCL's training queries). */
  excludeQueries: string[];
  /** Results per query (paper 500). */
  k: number;
  measures: string[];
  /** Validation split for tuning: paper-sized query count, drawn like the test split, disjoint from it. */
  validation: { queries: number };
  models: ModelConfig[];
  protocols: { dataset?: DatasetProtocolConfig; field?: FieldProtocolConfig; mdcr?: MdcrProtocolConfig };
  /** Where named dense models live (<modelsDir>/<name>/); a missing folder is a recorded skip, not an error. */
  modelsDir?: string;
  /** A query whose ranked list comes back empty counts 0 in every mean ('zero', trec_eval -c) or fails the cell. */
  emptyLists: 'zero' | 'error';
  /** Evaluation settings, run side by side; absent = the paper's (transductive) only. See settingsOf. */
  settings?: Setting[];
}

/** The settings a config runs, in order (absent: transductive only). */
export function settingsOf(cfg: Pick<ExperimentConfig, 'settings'>): Setting[] {
  return cfg.settings ?? ['transductive'];
}

export const DEFAULT_BETA_GRID = { beta: [0, 0.2, 0.4, 0.6, 0.8, 1], measure: 'map' };

export const DEFAULT_TUNE_GRID = { k1: [0.6, 0.9, 1.2, 1.5], b: [0.3, 0.4, 0.6, 0.75], measure: 'map' };

const KNOWN_KEYS: Record<string, string[]> = {
  '': ['name', 'seed', 'scale', 'work', 'results', 'corpus', 'queryYear', 'excludeQueries', 'k', 'measures', 'validation', 'models', 'protocols', 'modelsDir', 'emptyLists', 'setting'],
  corpus: ['synthetic', 'store', 'prefilter'],
  'corpus.synthetic': ['articles', 'seed'],
  validation: ['queries'],
  protocols: ['dataset', 'field', 'mdcr'],
  'protocols.dataset': ['queries', 'pools', 'repeats'],
  'protocols.field': ['queries', 'pool', 'repeats', 'fields'],
  'protocols.mdcr': ['positives', 'perType', 'modelDepth', 'mostCited', 'models'],
};
const BM25_KEYS = ['kind', 'k1', 'b', 'accurate', 'tune'];
const DENSE_KEYS = ['kind', 'model', 'modelsDir', 'pooling', 'distance', 'layers', 'maxLength', 'quantized', 'fp16', 'hnsw'];
const NAVIGATION_KEYS = ['kind', 'first', 'kd', 'kc', 'T', 'scorer', 'crossEncoder'];
const PROFILER_KEYS = ['kind', 'base', 'beta', 'tune', 'topTerms'];
const RERANK_KEYS = ['kind', 'first', 'depth', 'scorer', 'crossEncoder'];
const PAPER_KD = [300, 700, 900];
const PAPER_KC = [700, 300, 100];

/** Reads a YAML value tree with positions, so every error names its line. */
class Reader {
  constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  fail(path: (string | number)[], problem: string): never {
    let line: number | undefined;
    for (let n = path.length; n >= 0 && line === undefined; n--) {
      const node = (n === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, n), true)) as Node | undefined;
      if (node && (node as Node).range) line = this.lines.linePos((node as Node).range![0]).line;
    }
    throw new InputError(this.file, line, path.join('.') || undefined, problem);
  }

  has(path: (string | number)[]): boolean {
    return this.doc.hasIn(path);
  }

  raw(path: (string | number)[]): unknown {
    const v = this.doc.getIn(path, false);
    return v && typeof v === 'object' && 'toJSON' in (v as object) ? (v as { toJSON(): unknown }).toJSON() : v;
  }

  keys(path: (string | number)[]): string[] {
    const node = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    if (node === undefined || node === null) return [];
    if (!isMap(node)) this.fail(path, 'must be a mapping (key: value)');
    return node.items.map((p) => String((p.key as { value?: unknown })?.value ?? p.key));
  }

  checkKeys(path: (string | number)[], allowed: string[]): void {
    for (const k of this.keys(path)) if (!allowed.includes(k)) this.fail([...path, k], `unknown key '${k}' (expected one of: ${allowed.join(', ')})`);
  }

  num(path: (string | number)[], dflt: number | undefined, check: (n: number) => boolean = Number.isFinite, what = 'a number'): number {
    if (!this.has(path)) {
      if (dflt === undefined) this.fail(path, `is required (${what})`);
      return dflt;
    }
    const v = this.raw(path);
    if (typeof v !== 'number' || !check(v)) this.fail(path, `must be ${what}, got ${JSON.stringify(v)}`);
    return v;
  }

  str(path: (string | number)[], dflt?: string): string | undefined {
    if (!this.has(path)) return dflt;
    const v = this.raw(path);
    if (typeof v !== 'string' || v === '') this.fail(path, `must be a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  }

  bool(path: (string | number)[], dflt: boolean): boolean {
    if (!this.has(path)) return dflt;
    const v = this.raw(path);
    if (typeof v !== 'boolean') this.fail(path, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  }

  list<T>(path: (string | number)[], item: (p: (string | number)[]) => T): T[] {
    const node = this.doc.getIn(path, true);
    if (!isSeq(node)) this.fail(path, 'must be a list');
    return node.items.map((_, i) => item([...path, i]));
  }
}

const posInt = (n: number) => Number.isInteger(n) && n >= 1;

/** Overrides from the command line (`citebench reproduce --scale …`), applied after the file is read. */
export interface ConfigOverrides {
  scale?: number;
  seed?: number;
  articles?: number;
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
  }
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
    let fields: Field[] = [...FIELDS];
    if (r.has([...p, 'fields']) && r.raw([...p, 'fields']) !== 'all') {
      fields = r.list([...p, 'fields'], (q) => {
        const s = r.str(q)!;
        return parseField(s) ?? r.fail(q, `unknown MAG field '${s}' (full name or the paper's abbreviation)`);
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
  if (!protocols.dataset && !protocols.field) r.fail(['protocols'], 'name at least one protocol: dataset, field (and mdcr)');
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
  return { name, seed, scale, work, results, corpus: { synthetic, store, prefilter: 'paper' }, queryYear, excludeQueries, k, measures, validation, models, protocols, modelsDir, emptyLists: emptyLists as 'zero' | 'error', ...(settings ? { settings } : {}) };
}

function parseModels(r: Reader): ModelConfig[] {
  const names = r.keys(['models']);
  if (names.length === 0) r.fail(['models'], 'name at least one model (e.g. `bm25: {k1: 0.9, b: 0.4}`)');
  return names.map((name): ModelConfig => {
    const p = ['models', name];
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) r.fail(p, `model names are used in file names: letters, digits, '.', '_', '-' only`);
    const body = r.raw(p);
    if (body !== null && (typeof body !== 'object' || Array.isArray(body))) r.fail(p, 'a model is a mapping of its settings ({} for the defaults)');
    // `{ embeddings: FILE, … }` needs no kind: the key says it.
    const kind = r.str([...p, 'kind'], name === 'bm25' ? 'bm25' : body && typeof body === 'object' && 'embeddings' in body ? 'embeddings' : 'dense');
    if (kind === 'embeddings') return parseEmbeddings(r, p, name);
    if (kind === 'navigation' || kind === 'profiler' || kind === 'rerank') return parseComposed(r, p, name, kind, names.slice(0, names.indexOf(name)));
    if (kind === 'bm25') {
      r.checkKeys(p, BM25_KEYS);
      let tune: Bm25ModelConfig['tune'];
      if (r.has([...p, 'tune']) && r.raw([...p, 'tune']) !== false) {
        const t = [...p, 'tune'];
        const v = r.raw(t);
        if (v !== true) r.checkKeys(t, ['k1', 'b', 'measure']);
        const grid = (key: 'k1' | 'b') => (v !== true && r.has([...t, key]) ? r.list([...t, key], (q) => r.num(q, undefined, (n) => n >= 0, 'a number ≥ 0')) : DEFAULT_TUNE_GRID[key]);
        tune = { k1: grid('k1'), b: grid('b'), measure: v !== true ? r.str([...t, 'measure'], DEFAULT_TUNE_GRID.measure)! : DEFAULT_TUNE_GRID.measure };
        for (const b of tune.b) if (b > 1) r.fail([...t, 'b'], `b must be in [0, 1], got ${b}`);
      }
      return {
        kind: 'bm25', name,
        k1: r.num([...p, 'k1'], 0.9, (n) => n >= 0, 'a number ≥ 0'),
        b: r.num([...p, 'b'], 0.4, (n) => n >= 0 && n <= 1, 'in [0, 1]'),
        accurate: r.bool([...p, 'accurate'], false),
        tune,
      };
    }
    if (kind !== 'dense') r.fail([...p, 'kind'], `must be bm25, dense, embeddings, navigation, profiler or rerank, got '${kind}'`);
    r.checkKeys(p, DENSE_KEYS);
    const oneOf = <T extends string>(key: string, allowed: readonly T[]): T | undefined => {
      const v = r.str([...p, key]);
      if (v !== undefined && !allowed.includes(v as T)) r.fail([...p, key], `must be one of ${allowed.join(', ')}, got '${v}'`);
      return v as T | undefined;
    };
    let hnsw: DenseModelConfig['hnsw'];
    if (r.has([...p, 'hnsw']) && r.raw([...p, 'hnsw']) !== false) {
      const h = [...p, 'hnsw'];
      if (r.raw(h) !== true) r.checkKeys(h, ['M', 'efConstruction', 'efSearch']);
      hnsw = {
        M: r.num([...h, 'M'], 32, posInt, 'a positive integer'),
        efConstruction: r.num([...h, 'efConstruction'], 200, posInt, 'a positive integer'),
        efSearch: r.num([...h, 'efSearch'], 1000, posInt, 'a positive integer'),
      };
    }
    return {
      kind: 'dense', name,
      model: r.str([...p, 'model'], name)!,
      modelsDir: r.str([...p, 'modelsDir']),
      pooling: oneOf('pooling', ['cls', 'mean', 'aspire'] as const),
      distance: oneOf('distance', ['l2', 'ip'] as const),
      layers: oneOf('layers', ['all', 'last'] as const),
      maxLength: r.has([...p, 'maxLength']) ? r.num([...p, 'maxLength'], undefined, (n) => Number.isInteger(n) && n >= 8, 'an integer ≥ 8') : undefined,
      quantized: r.bool([...p, 'quantized'], false),
      ...precision(r, p),
      hnsw,
    };
  });
}

/** `{ embeddings: FILE, distance: l2|ip, ids?, strict?, weights? }`: vectors computed elsewhere. */
function parseEmbeddings(r: Reader, p: string[], name: string): EmbeddingsModelConfig {
  r.checkKeys(p, ['kind', 'embeddings', 'ids', 'distance', 'strict', 'weights']);
  const file = r.str([...p, 'embeddings']) ?? r.fail([...p, 'embeddings'], 'is required: the vectors file (.jsonl, .npy or .safetensors)');
  if (!/\.(jsonl?|npy|safetensors)$/i.test(file)) r.fail([...p, 'embeddings'], `'${file}' is not a .jsonl (SciRepEval), .npy or .safetensors file`);
  const ids = r.str([...p, 'ids']);
  if (ids !== undefined && /\.jsonl?$/i.test(file)) r.fail([...p, 'ids'], 'a JSONL file names its papers itself (doc_id); ids is for .npy and .safetensors');
  const distance = r.str([...p, 'distance']) ?? r.fail([...p, 'distance'], 'is required: l2 or ip, the distance the vectors were made for (SPECTER, SciNCL: l2)');
  if (distance !== 'l2' && distance !== 'ip') r.fail([...p, 'distance'], `must be l2 or ip, got '${distance}'`);
  const weights = r.str([...p, 'weights'], 'imported');
  if (weights !== 'imported' && weights !== 'trained' && weights !== 'random') r.fail([...p, 'weights'], `must be imported (default: provenance unknown), trained or random, got '${weights}'`);
  return {
    kind: 'embeddings', name, embeddings: file, ...(ids !== undefined ? { ids } : {}), distance, strict: r.bool([...p, 'strict'], false),
    ...(weights !== 'imported' ? { weights } : {}),
  };
}

/** `fp16: true` (kept out of the canonical config when false, so existing configs keep their hash). */
function precision(r: Reader, p: string[]): { fp16?: true } {
  if (!r.bool([...p, 'fp16'], false)) return {};
  if (r.bool([...p, 'quantized'], false)) r.fail([...p, 'fp16'], 'and quantized exclude each other: one ONNX export per model');
  return { fp16: true };
}

/** navigation / profiler / rerank: models built on models configured above them (`earlier`). */
function parseComposed(r: Reader, p: string[], name: string, kind: 'navigation' | 'profiler' | 'rerank', earlier: string[]): ModelConfig {
  r.checkKeys(p, kind === 'navigation' ? NAVIGATION_KEYS : kind === 'profiler' ? PROFILER_KEYS : RERANK_KEYS);
  const ref = (key: string): string => {
    const v = r.str([...p, key]);
    if (v === undefined) r.fail([...p, key], `is required: the name of a model configured above ${name}`);
    if (!earlier.includes(v)) r.fail([...p, key], `'${v}' is not a model configured above ${name} (have: ${earlier.join(', ') || 'none'})`);
    return v;
  };
  const crossEncoder = (): CrossEncoderRef | undefined => {
    const c = [...p, 'crossEncoder'];
    if (!r.has(c)) return undefined;
    if (typeof r.raw(c) === 'string') return { model: r.str(c)!, quantized: false };
    r.checkKeys(c, ['model', 'modelsDir', 'quantized', 'fp16', 'maxLength']);
    return {
      model: r.str([...c, 'model']) ?? r.fail([...c, 'model'], 'is required: a registry name, hub id or model folder'),
      modelsDir: r.str([...c, 'modelsDir']),
      quantized: r.bool([...c, 'quantized'], false),
      ...precision(r, c),
      maxLength: r.has([...c, 'maxLength']) ? r.num([...c, 'maxLength'], undefined, (n) => Number.isInteger(n) && n >= 8, 'an integer ≥ 8') : undefined,
    };
  };
  // scorer: a model name, or a mapping name → weight; `cross-encoder` names the crossEncoder folder.
  const scorer = (dflt: string | undefined, ce: CrossEncoderRef | undefined): ScorerPart[] => {
    const s = [...p, 'scorer'];
    const check = (m: string, at: (string | number)[]) => {
      if (m === 'cross-encoder' ? !ce : !earlier.includes(m)) r.fail(at, m === 'cross-encoder' ? `'cross-encoder' needs a crossEncoder folder` : `'${m}' is not a model configured above ${name} (have: ${earlier.join(', ')})`);
      return m;
    };
    if (!r.has(s)) {
      if (dflt === undefined) r.fail(s, 'is required: a model configured above, `cross-encoder` with a crossEncoder folder, or {model: weight, …}');
      return [{ model: dflt, weight: 1 }];
    }
    if (typeof r.raw(s) === 'string') return [{ model: check(r.str(s)!, s), weight: 1 }];
    const parts = r.keys(s).map((m) => ({ model: check(m, [...s, m]), weight: r.num([...s, m], undefined, Number.isFinite, 'a weight (number)') }));
    if (parts.length === 0) r.fail(s, 'name at least one model');
    return parts;
  };
  const depthList = (key: string, T: number, paper: number[]): number[] => {
    const at = [...p, key];
    if (!r.has(at)) {
      if (T > paper.length) r.fail(at, `give ${key} for each of the ${T} iterations (the paper's values stop at T = ${paper.length})`);
      return paper.slice(0, T);
    }
    const ok = (n: number) => Number.isInteger(n) && n >= 0;
    const v = Array.isArray(r.raw(at)) ? r.list(at, (q) => r.num(q, undefined, ok, 'an integer ≥ 0')) : Array(T).fill(r.num(at, undefined, ok, 'an integer ≥ 0 (or one per iteration)'));
    if (v.length !== T) r.fail(at, `has ${v.length} values for T = ${T} iterations`);
    return v;
  };
  if (kind === 'navigation') {
    const first = ref('first');
    const listed = ['kd', 'kc'].map((k) => r.raw([...p, k])).find(Array.isArray) as unknown[] | undefined;
    const T = r.num([...p, 'T'], listed ? listed.length : 1, posInt, 'a positive integer (iterations)');
    const kd = depthList('kd', T, PAPER_KD);
    if (kd.some((n) => n < 1)) r.fail([...p, 'kd'], 'k_d must be ≥ 1 in every iteration');
    const ce = crossEncoder();
    return { kind, name, first, kd, kc: depthList('kc', T, PAPER_KC), scorer: scorer(ce ? 'cross-encoder' : first, ce), ...(ce ? { crossEncoder: ce } : {}) };
  }
  if (kind === 'rerank') {
    const first = ref('first');
    const ce = crossEncoder();
    return { kind, name, first, depth: r.num([...p, 'depth'], 100, posInt, 'a positive integer'), scorer: scorer(ce ? 'cross-encoder' : undefined, ce), ...(ce ? { crossEncoder: ce } : {}) };
  }
  const base = ref('base');
  let tune: ProfilerModelConfig['tune'];
  if (r.has([...p, 'tune']) && r.raw([...p, 'tune']) !== false) {
    const t = [...p, 'tune'];
    const v = r.raw(t);
    if (v !== true) r.checkKeys(t, ['beta', 'measure']);
    tune = {
      beta: v !== true && r.has([...t, 'beta']) ? r.list([...t, 'beta'], (q) => r.num(q, undefined, (n) => n >= 0, 'a number ≥ 0')) : DEFAULT_BETA_GRID.beta,
      measure: v !== true ? r.str([...t, 'measure'], DEFAULT_BETA_GRID.measure)! : DEFAULT_BETA_GRID.measure,
    };
    try {
      parseMeasure(tune.measure);
    } catch (e) {
      r.fail([...t, 'measure'], (e as Error).message);
    }
  }
  // Goyal et al.'s sweep chose β = 0.2 (with α = 0.8 on citation contexts, which S2ORC metadata lacks).
  const topTerms = r.has([...p, 'topTerms']) ? r.num([...p, 'topTerms'], undefined, posInt, 'a positive integer') : undefined;
  return { kind, name, base, beta: r.num([...p, 'beta'], 0.2, (n) => n >= 0, 'a number ≥ 0'), ...(topTerms ? { topTerms } : {}), ...(tune ? { tune } : {}) };
}

/**
 * The resolved config as canonical JSON (key order fixed): what the results folder records and hashes. Where
 * outputs go (work, results) is left out: the same experiment in another folder has the same identity and bytes.
 */
export function canonicalConfig(cfg: ExperimentConfig): string {
  const { work: _w, results: _r, ...what } = cfg;
  return JSON.stringify(what, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => [k, v[k]])) : v), 2) + '\n';
}

export function configHash(cfg: ExperimentConfig): string {
  return hashString(canonicalConfig(cfg)).toString(16).padStart(8, '0');
}

/** A path from the config, as given, resolved against the current directory. */
export function configPath(p: string): string {
  return isAbsolute(p) ? p : resolve(p);
}

