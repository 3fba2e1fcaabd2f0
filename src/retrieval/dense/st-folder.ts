/**
 * A sentence-transformers folder, read as the library (6.x; sentence_transformers/base/model.py
 * `_load_config_modules`) reads it:
 * - `modules.json`: the modules in file order, each `{idx, name, path, type}`; citebench runs a Transformer,
 *   then a Pooling, then any number of Dense modules (st-dense.ts), then optionally a Normalize module (any of the
 *   library's module paths: the 6.x `sentence_transformers.base.modules…` / `…sentence_transformer.modules…` and
 *   the older `sentence_transformers.models.X`). Any other module (Router, LayerNorm, custom code) is a one-line
 *   error naming modules.json and the module.
 * - the Transformer module's folder (`path`: "" = the folder itself, or a subfolder such as `0_Transformer`)
 *   holds config.json, the tokenizer and the weights, and `sentence_bert_config.json` (or one of its legacy
 *   names): `max_seq_length`, `do_lower_case`.
 * - the Pooling module's `config.json`: `pooling_mode` (a mode or a list of modes) or the legacy
 *   `pooling_mode_*` booleans (none true = mean, as the library converts them), `include_prompt`.
 * - `config_sentence_transformers.json`: `prompts`, `default_prompt_name`, `similarity_fn_name` (absent: cosine),
 *   `truncate_dim`, `model_type` (SentenceTransformer only).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../util/errors.ts';
import { POOLING_MODES, type PoolingMode, type PoolingSpec } from './pooling.ts';
import { readDenseSpec, type DenseSpec } from './st-dense.ts';
import { distanceOf, type Distance } from './similarity.ts';

export const MODULES_FILE = 'modules.json';
export const ST_CONFIG_FILE = 'config_sentence_transformers.json';
/** The Transformer module's config, by its current name and the names older versions wrote. */
export const TRANSFORMER_CONFIG_FILES = [
  'sentence_bert_config.json',
  'sentence_roberta_config.json',
  'sentence_distilbert_config.json',
  'sentence_camembert_config.json',
  'sentence_albert_config.json',
  'sentence_xlm-roberta_config.json',
  'sentence_xlnet_config.json',
];

export interface StModule {
  name: string;
  /** Relative folder of the module ("" = the model folder). */
  path: string;
  kind: 'Transformer' | 'Pooling' | 'Dense' | 'Normalize';
}

export interface StFolder {
  /** The Transformer module's folder (config.json, tokenizer, weights). */
  transformerDir: string;
  pooling: Omit<PoolingSpec, 'dense'>;
  /** The Dense modules between Pooling and Normalize, in order (weights not read yet). */
  dense: DenseSpec[];
  /** sentence_bert_config.json `max_seq_length` (undefined: the tokenizer's limit). */
  maxSeqLength?: number;
  doLowerCase: boolean;
  /** config_sentence_transformers.json `prompts` (null values as ""). */
  prompts: Record<string, string>;
  defaultPromptName?: string;
  /** `similarity_fn_name` (absent or null: cosine, the library's default). */
  similarity: Distance;
  /** The files read (they define the model: for its fingerprint). */
  files: string[];
}

const KINDS = ['Transformer', 'Pooling', 'Dense', 'Normalize'] as const;

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new InputError(path, undefined, undefined, `not valid JSON (${(e as Error).message})`);
  }
}

function object(v: unknown, path: string, field?: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InputError(path, undefined, field, 'must be a JSON object');
  return v as Record<string, unknown>;
}

/** A module path as modules.json gives it: relative, inside the folder. */
function modulePath(v: unknown, file: string, field: string): string {
  if (typeof v !== 'string') throw new InputError(file, undefined, field, 'must be a string (the module folder, "" for the model folder)');
  const p = v.replace(/\/+$/, '');
  if (p.startsWith('/') || p.includes('\\') || p.split('/').some((s) => s === '..' || s === '.'))
    throw new InputError(file, undefined, field, `${JSON.stringify(v)} is not a folder inside the model folder`);
  return p;
}

/** The modules of modules.json, checked to be Transformer → Pooling → Dense … → optional Normalize. */
export function readModules(dir: string): StModule[] | undefined {
  const file = join(dir, MODULES_FILE);
  if (!existsSync(file)) return undefined;
  const raw = readJson(file);
  if (!Array.isArray(raw)) throw new InputError(file, undefined, undefined, 'must be a JSON list of modules');
  const mods: StModule[] = raw.map((m, i) => {
    const o = object(m, file, `[${i}]`);
    const type = o.type;
    const label = `[${i}] (${typeof o.name === 'string' ? o.name : `module ${i}`})`;
    if (typeof type !== 'string') throw new InputError(file, undefined, `${label}.type`, 'must be a string');
    const cls = type.split('.').pop()!;
    if (!type.startsWith('sentence_transformers.') || !(KINDS as readonly string[]).includes(cls))
      throw new InputError(file, undefined, `${label}.type`, `${type} is not supported: citebench runs Transformer, Pooling, Dense and Normalize modules only`);
    return { name: typeof o.name === 'string' ? o.name : String(i), path: modulePath(o.path ?? '', file, `${label}.path`), kind: cls as StModule['kind'] };
  });
  const kinds = mods.map((m) => m.kind).join(' → ');
  if (!/^Transformer → Pooling( → Dense)*( → Normalize)?$/.test(kinds))
    throw new InputError(file, undefined, undefined, `modules ${kinds || '(none)'}: citebench runs Transformer → Pooling, then any Dense modules, optionally → Normalize`);
  return mods;
}

/** The Pooling module's config: modes (current or legacy form) and include_prompt. */
function readPooling(file: string): { modes: PoolingMode[]; includePrompt: boolean } {
  if (!existsSync(file)) throw new InputError(file, undefined, undefined, 'missing: the Pooling module of modules.json has no config.json');
  const c = object(readJson(file), file);
  const includePrompt = c.include_prompt ?? true;
  if (typeof includePrompt !== 'boolean') throw new InputError(file, undefined, 'include_prompt', 'must be true or false');
  const isMode = (m: unknown): m is PoolingMode => typeof m === 'string' && (POOLING_MODES as readonly string[]).includes(m);
  if (c.pooling_mode !== undefined && c.pooling_mode !== null) {
    const v = c.pooling_mode;
    const modes = Array.isArray(v) ? v : [v];
    if (modes.length === 0 || !modes.every(isMode))
      throw new InputError(file, undefined, 'pooling_mode', `${JSON.stringify(v)} is not one of ${POOLING_MODES.join(', ')} (or a list of them)`);
    return { modes, includePrompt };
  }
  // Legacy booleans, in the library's concatenation order; none true = mean (_convert_legacy_pooling_kwargs).
  const legacy: [string, PoolingMode][] = [
    ['pooling_mode_cls_token', 'cls'],
    ['pooling_mode_max_tokens', 'max'],
    ['pooling_mode_mean_tokens', 'mean'],
    ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len_tokens'],
    ['pooling_mode_weightedmean_tokens', 'weightedmean'],
    ['pooling_mode_lasttoken', 'lasttoken'],
  ];
  const modes: PoolingMode[] = [];
  for (const [key, mode] of legacy) {
    const v = c[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'boolean') throw new InputError(file, undefined, key, 'must be true or false');
    if (v) modes.push(mode);
  }
  return { modes: modes.length ? modes : ['mean'], includePrompt };
}

/**
 * The sentence-transformers settings of `dir`, or undefined when it has no modules.json (a plain transformers
 * folder). Errors name the file and key.
 */
export function readStFolder(dir: string): StFolder | undefined {
  const mods = readModules(dir);
  if (!mods) return undefined;
  const files = [join(dir, MODULES_FILE)];
  const transformerDir = mods[0].path ? join(dir, mods[0].path) : dir;
  const poolFile = join(dir, mods[1].path, 'config.json');
  const pool = readPooling(poolFile);
  files.push(poolFile);
  const dense = mods.filter((m) => m.kind === 'Dense').map((m) => readDenseSpec(join(dir, m.path)));
  files.push(...dense.map((d) => join(d.dir, 'config.json')));

  let maxSeqLength: number | undefined;
  let doLowerCase = false;
  const tcfg = TRANSFORMER_CONFIG_FILES.map((f) => join(transformerDir, f)).find((f) => existsSync(f));
  if (tcfg) {
    files.push(tcfg);
    const c = object(readJson(tcfg), tcfg);
    if (c.max_seq_length !== undefined && c.max_seq_length !== null) {
      if (typeof c.max_seq_length !== 'number' || !Number.isInteger(c.max_seq_length) || c.max_seq_length < 1)
        throw new InputError(tcfg, undefined, 'max_seq_length', `must be a positive integer, got ${JSON.stringify(c.max_seq_length)}`);
      maxSeqLength = c.max_seq_length;
    }
    if (c.do_lower_case !== undefined) {
      if (typeof c.do_lower_case !== 'boolean') throw new InputError(tcfg, undefined, 'do_lower_case', 'must be true or false');
      doLowerCase = c.do_lower_case;
    }
  }

  const prompts: Record<string, string> = {};
  let defaultPromptName: string | undefined;
  let similarity: Distance = 'cosine';
  let truncateDim: number | undefined;
  const stFile = join(dir, ST_CONFIG_FILE);
  if (existsSync(stFile)) {
    files.push(stFile);
    const c = object(readJson(stFile), stFile);
    if (c.model_type !== undefined && c.model_type !== null && c.model_type !== 'SentenceTransformer')
      throw new InputError(stFile, undefined, 'model_type', `is ${JSON.stringify(c.model_type)}: citebench runs SentenceTransformer models (single vectors) only`);
    if (c.prompts !== undefined && c.prompts !== null) {
      for (const [k, v] of Object.entries(object(c.prompts, stFile, 'prompts'))) {
        if (v !== null && typeof v !== 'string') throw new InputError(stFile, undefined, `prompts.${k}`, 'must be a string');
        prompts[k] = v ?? '';
      }
    }
    if (c.default_prompt_name !== undefined && c.default_prompt_name !== null) {
      if (typeof c.default_prompt_name !== 'string' || !(c.default_prompt_name in prompts || ['query', 'document'].includes(c.default_prompt_name)))
        throw new InputError(stFile, undefined, 'default_prompt_name', `${JSON.stringify(c.default_prompt_name)} is not a key of prompts`);
      defaultPromptName = c.default_prompt_name;
    }
    if (c.similarity_fn_name !== undefined && c.similarity_fn_name !== null) {
      const name = c.similarity_fn_name;
      const d = typeof name === 'string' && ['cosine', 'dot', 'euclidean', 'manhattan'].includes(name) ? distanceOf(name) : undefined;
      if (!d) throw new InputError(stFile, undefined, 'similarity_fn_name', `${JSON.stringify(name)} is not one of cosine, dot, euclidean, manhattan`);
      similarity = d;
    }
    if (c.truncate_dim !== undefined && c.truncate_dim !== null) {
      if (typeof c.truncate_dim !== 'number' || !Number.isInteger(c.truncate_dim) || c.truncate_dim < 1)
        throw new InputError(stFile, undefined, 'truncate_dim', `must be a positive integer, got ${JSON.stringify(c.truncate_dim)}`);
      truncateDim = c.truncate_dim;
    }
  }
  return {
    transformerDir,
    pooling: { modes: pool.modes, includePrompt: pool.includePrompt, normalize: mods.at(-1)!.kind === 'Normalize', ...(truncateDim !== undefined ? { truncateDim } : {}) },
    dense,
    ...(maxSeqLength !== undefined ? { maxSeqLength } : {}),
    doLowerCase,
    prompts,
    ...(defaultPromptName !== undefined ? { defaultPromptName } : {}),
    similarity,
    files,
  };
}
