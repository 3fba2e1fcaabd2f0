/**
 * A BERT WordPiece tokenizer for a model folder that ships `vocab.txt` (+ `tokenizer_config.json`) but no
 * `tokenizer.json`, as the paper's encoders on the Hugging Face hub do. `bertTokenizerJson` builds the
 * tokenizer.json that Python `transformers` (v5) `BertTokenizerFast.from_pretrained(folder).save_pretrained(...)`
 * writes for the same folder (models/bert/tokenization_bert.py: BertNormalizer, BertPreTokenizer, WordPiece with
 * "##" and 100 characters a word, [CLS] $A [SEP] template, WordPiece decoder; the special tokens as added tokens,
 * so "[SEP]" in a text is the token itself). The vocabulary is read as the `tokenizers` library reads vocab.txt
 * (WordPiece::read_file): one token a line, trailing white space cut, the line number is the id.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { readJsonObjectIf } from '../../util/json.ts';

/** What transformers' BertTokenizer takes from tokenizer_config.json (and special_tokens_map.json), defaults filled. */
export interface BertTokenizerConfig {
  tokenizer_class: 'BertTokenizer';
  do_lower_case: boolean;
  /** null: follows do_lower_case (original BERT). */
  strip_accents: boolean | null;
  tokenize_chinese_chars: boolean;
  /** transformers' VERY_LARGE_INTEGER (1e30) when the folder does not say. */
  model_max_length: number;
  unk_token: string;
  sep_token: string;
  pad_token: string;
  cls_token: string;
  mask_token: string;
  /** As the config has it (transformers ≥ 4.34 save the special tokens there); checked against the vocabulary. */
  added_tokens_decoder?: Record<string, unknown>;
}

/** One entry of tokenizer.json's `added_tokens`. */
export interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** The tokenizer.json of a BERT WordPiece tokenizer (the `tokenizers` library's serialisation, field order kept). */
export interface BertTokenizerJson {
  version: '1.0';
  truncation: null;
  padding: null;
  added_tokens: AddedTokenJson[];
  normalizer: { type: 'BertNormalizer'; clean_text: true; handle_chinese_chars: boolean; strip_accents: boolean | null; lowercase: boolean };
  pre_tokenizer: { type: 'BertPreTokenizer' };
  post_processor: {
    type: 'TemplateProcessing';
    single: TemplatePiece[];
    pair: TemplatePiece[];
    special_tokens: Record<string, { id: string; ids: number[]; tokens: string[] }>;
  };
  decoder: { type: 'WordPiece'; prefix: '##'; cleanup: true };
  model: { type: 'WordPiece'; unk_token: string; continuing_subword_prefix: '##'; max_input_chars_per_word: 100; vocab: Record<string, number> };
}

type TemplatePiece = { SpecialToken: { id: string; type_id: number } } | { Sequence: { id: 'A' | 'B'; type_id: number } };

/** transformers' tokenization_utils_base.VERY_LARGE_INTEGER = int(1e30): "no limit". */
const VERY_LARGE_INTEGER = 1e30;

/** transformers' SPECIAL_TOKENS_ATTRIBUTES order (bos/eos are not BERT's); missing ones are appended in it. */
const SPECIAL_NAMES = ['unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'] as const;
const SPECIAL_DEFAULTS: Record<(typeof SPECIAL_NAMES)[number], string> = {
  unk_token: '[UNK]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  cls_token: '[CLS]',
  mask_token: '[MASK]',
};
/** Without these in vocab.txt the tokenizer cannot run (unknown words, [CLS] … [SEP]). */
const REQUIRED: readonly (typeof SPECIAL_NAMES)[number][] = ['unk_token', 'cls_token', 'sep_token'];

/** The files transformers reads besides vocab.txt (special_tokens_map.json and added_tokens.json: legacy). */
const CONFIG_FILE = 'tokenizer_config.json';
const MAP_FILE = 'special_tokens_map.json';
const ADDED_FILE = 'added_tokens.json';

const NO_SUPPORT = 'the vocab.txt route builds plain BERT WordPiece tokenizers only; give the folder a tokenizer.json';


/** A special token as a tokenizer config writes it: a string, or an AddedToken object with `content`. */
function tokenName(v: unknown, where: string, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') {
    const t = v as Partial<AddedTokenJson>;
    if (t.lstrip || t.rstrip || t.single_word || t.normalized)
      throw new InputError(where, undefined, field, `lstrip/rstrip/single_word/normalized special tokens are not supported: ${NO_SUPPORT}`);
    return t.content;
  }
  throw new InputError(where, undefined, field, 'must be a string or an object with a string "content"');
}

/**
 * The BERT tokenizer settings a folder's files give, as transformers' BertTokenizerFast.from_pretrained reads
 * them: tokenizer_config.json (absent: BertTokenizer's defaults, lower-casing included), and the legacy
 * special_tokens_map.json, whose token names win, unless the config has `added_tokens_decoder`. `files` are
 * the files that were read (they define the tokenizer: for fingerprints). Settings the vocab.txt route cannot
 * reproduce exactly (other tokenizer classes, extra added tokens) are errors naming the file and field.
 */
export function readTokenizerConfig(dir: string): { config: BertTokenizerConfig; files: string[] } {
  const files: string[] = [];
  const cfgPath = join(dir, CONFIG_FILE);
  const raw = readJsonObjectIf(cfgPath);
  if (raw) files.push(cfgPath);
  const merged: Record<string, unknown> = { ...raw };
  if (!raw || !('added_tokens_decoder' in raw)) {
    const mapPath = join(dir, MAP_FILE);
    const map = readJsonObjectIf(mapPath);
    if (map) {
      files.push(mapPath);
      for (const [k, v] of Object.entries(map)) {
        if (SPECIAL_NAMES.includes(k as (typeof SPECIAL_NAMES)[number])) merged[k] = tokenName(v, mapPath, k);
        else if (!isEmpty(v)) throw new InputError(mapPath, undefined, k, `not supported: ${NO_SUPPORT}`);
      }
    }
    const addedPath = join(dir, ADDED_FILE);
    const added = readJsonObjectIf(addedPath);
    if (added) {
      files.push(addedPath);
      if (Object.keys(added).length > 0) throw new InputError(addedPath, undefined, undefined, `added tokens are not supported: ${NO_SUPPORT}`);
    }
  }
  return { config: bertTokenizerConfig(merged, raw ? cfgPath : join(dir, MAP_FILE)), files };
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && Object.keys(v as object).length === 0);
}

/**
 * A parsed tokenizer_config.json (or undefined: none) as BertTokenizer settings, defaults filled; `where` names
 * the file in errors.
 */
export function bertTokenizerConfig(raw: object | undefined, where: string): BertTokenizerConfig {
  const c = (raw ?? {}) as Record<string, unknown>;
  const bool = (field: string, dflt: boolean): boolean => {
    const v = c[field];
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') throw new InputError(where, undefined, field, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  };
  const cls = c.tokenizer_class;
  if (cls !== undefined && cls !== null && cls !== 'BertTokenizer' && cls !== 'BertTokenizerFast')
    throw new InputError(where, undefined, 'tokenizer_class', `is ${JSON.stringify(cls)}: ${NO_SUPPORT}`);
  for (const field of ['bos_token', 'eos_token', 'additional_special_tokens', 'extra_special_tokens'])
    if (!isEmpty(c[field])) throw new InputError(where, undefined, field, `not supported: ${NO_SUPPORT}`);
  const strip = c.strip_accents;
  if (strip !== undefined && strip !== null && typeof strip !== 'boolean')
    throw new InputError(where, undefined, 'strip_accents', `must be true, false or null, got ${JSON.stringify(strip)}`);
  const maxLen = c.model_max_length ?? c.max_len ?? VERY_LARGE_INTEGER;
  if (typeof maxLen !== 'number' || !Number.isInteger(maxLen) || maxLen < 1)
    throw new InputError(where, undefined, 'model_max_length', `must be a positive integer, got ${JSON.stringify(maxLen)}`);
  const dec = c.added_tokens_decoder;
  if (dec !== undefined && dec !== null && (typeof dec !== 'object' || Array.isArray(dec)))
    throw new InputError(where, undefined, 'added_tokens_decoder', 'must be an object of id → token');
  const names = {} as Record<(typeof SPECIAL_NAMES)[number], string>;
  for (const n of SPECIAL_NAMES) names[n] = tokenName(c[n], where, n) ?? SPECIAL_DEFAULTS[n];
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: bool('do_lower_case', true),
    strip_accents: (strip ?? null) as boolean | null,
    tokenize_chinese_chars: bool('tokenize_chinese_chars', true),
    model_max_length: maxLen,
    ...names,
    ...(dec ? { added_tokens_decoder: dec as Record<string, unknown> } : {}),
  };
}

/**
 * vocab.txt as token → id, read as the `tokenizers` library reads it: lines split at "\n" (a final newline
 * ends the last line), trailing Unicode white space (and "\r") cut. Empty files, repeated tokens and a missing
 * [UNK]/[CLS]/[SEP] are errors naming the file (`where`) and line.
 */
export function parseVocab(vocabText: string, where: string): Map<string, number> {
  const lines = vocabText.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new InputError(where, undefined, undefined, 'empty vocabulary: a WordPiece vocab.txt has one token a line');
  const vocab = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const token = lines[i].replace(/\p{White_Space}+$/u, '');
    const had = vocab.get(token);
    if (had !== undefined)
      throw new InputError(where, i + 1, undefined, `token ${JSON.stringify(token)} repeats line ${had + 1}: every line must hold a different token`);
    vocab.set(token, i);
  }
  return vocab;
}

/**
 * The tokenizer.json Python transformers' BertTokenizerFast saves for a folder with this vocab.txt text and
 * tokenizer_config.json object (undefined: none; a `readTokenizerConfig` result works too). `where` is the
 * vocab file, for errors. Special tokens missing from the vocabulary ([PAD], [MASK]) get the next ids, as
 * transformers adds them.
 */
export function bertTokenizerJson(vocabText: string, tokenizerConfig: object | undefined, where: string): BertTokenizerJson {
  const cfg = bertTokenizerConfig(tokenizerConfig, `${where} (tokenizer config)`);
  const vocab = parseVocab(vocabText, where);
  for (const n of REQUIRED)
    if (!vocab.has(cfg[n])) throw new InputError(where, undefined, undefined, `no ${cfg[n]} token (${n}): not a BERT WordPiece vocabulary`);
  checkAddedTokensDecoder(cfg.added_tokens_decoder, vocab, where);
  const added: AddedTokenJson[] = [];
  const ids = new Map<string, number>();
  let next = vocab.size;
  for (const n of SPECIAL_NAMES) {
    const content = cfg[n];
    if (ids.has(content)) continue;
    const id = vocab.get(content) ?? next++;
    ids.set(content, id);
    added.push({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  }
  added.sort((a, b) => a.id - b.id);
  const cls = cfg.cls_token;
  const sep = cfg.sep_token;
  const special = (token: string) => ({ id: token, ids: [ids.get(token)!], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: cfg.tokenize_chinese_chars,
      strip_accents: cfg.strip_accents,
      lowercase: cfg.do_lower_case,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: cls, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: sep, type_id: 0 } }],
      pair: [
        { SpecialToken: { id: cls, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: sep, type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: sep, type_id: 1 } },
      ],
      special_tokens: cls === sep ? { [cls]: special(cls) } : { [cls]: special(cls), [sep]: special(sep) },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: cfg.unk_token,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab),
    },
  };
}

/**
 * transformers ≥ 4.34 save the special tokens as `added_tokens_decoder` in tokenizer_config.json; entries that
 * are the vocabulary's own special tokens change nothing. Anything else would add tokens: not reproduced here.
 */
function checkAddedTokensDecoder(dec: Record<string, unknown> | undefined, vocab: Map<string, number>, where: string): void {
  if (dec === undefined) return;
  for (const [id, t] of Object.entries(dec)) {
    const field = `tokenizer_config.json added_tokens_decoder.${id}`;
    const content = tokenName(t, where, field);
    if (vocab.get(content!) !== Number(id) || (t as { special?: unknown }).special === false)
      throw new InputError(where, undefined, field, `${JSON.stringify(content)} is not this vocabulary's special token ${id}: ${NO_SUPPORT}`);
  }
}

/** The files that define a folder's tokenizer: tokenizer.json when present, else vocab.txt and its configs. */
export function tokenizerFiles(dir: string): { kind: 'tokenizer.json' | 'vocab.txt'; files: string[] } | undefined {
  const json = join(dir, 'tokenizer.json');
  if (existsSync(json)) return { kind: 'tokenizer.json', files: [json] };
  const vocab = join(dir, 'vocab.txt');
  if (!existsSync(vocab)) return undefined;
  const configs = [CONFIG_FILE, MAP_FILE, ADDED_FILE].map((f) => join(dir, f)).filter((f) => existsSync(f));
  return { kind: 'vocab.txt', files: [vocab, ...configs] };
}

/**
 * The tokenizer.json and config for a folder that has vocab.txt and no tokenizer.json (in memory; nothing is
 * written into the folder). vocab.txt must be UTF-8; a byte-order mark stays part of the first token, as in Python.
 */
export function bertTokenizerFromVocab(dir: string): { json: BertTokenizerJson; config: BertTokenizerConfig } {
  const vocabPath = join(dir, 'vocab.txt');
  let bytes: Buffer;
  try {
    bytes = readFileSync(vocabPath);
  } catch (e) {
    throw new CitebenchError(`${vocabPath}: cannot read it (${(e as Error).message})`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InputError(vocabPath, undefined, undefined, 'not valid UTF-8');
  }
  const { config } = readTokenizerConfig(dir);
  return { json: bertTokenizerJson(text, config, vocabPath), config };
}

/** CJK ideographs outside the BMP that the `tokenizers` library's BertNormalizer surrounds with spaces. */
const ASTRAL_CJK = /[\u{20000}-\u{2A6DF}\u{2A700}-\u{2B81F}\u{2B920}-\u{2CEAF}\u{2F800}-\u{2FA1F}]/gu;

/**
 * A text rewrite that makes transformers.js's BertNormalizer give what Python's (Rust `tokenizers`) gives, for
 * a tokenizer.json `normalizer`; undefined when none is needed. Two differences matter on real text:
 * - lower-casing: JavaScript's toLowerCase maps a word-final capital sigma to "ς" (Unicode's Final_Sigma rule,
 *   e.g. "pΣ0K+" in a physics abstract), Rust maps each character alone, always to "σ": Σ becomes σ first;
 * - CJK ideographs beyond U+FFFF (extensions B–F, compatibility supplement): transformers.js tests UTF-16 code
 *   units and misses them, Rust puts spaces around each: the spaces are put in first.
 * Characters that Unicode assigned after the Rust library's tables (rare scripts, new punctuation and marks)
 * still differ; docs/dense.md says how this was measured.
 */
export function bertParityRewrite(normalizer: unknown): ((text: string) => string) | undefined {
  const n = normalizer as { type?: unknown; lowercase?: unknown; handle_chinese_chars?: unknown } | null | undefined;
  if (!n || n.type !== 'BertNormalizer') return undefined;
  const lower = n.lowercase === true;
  const cjk = n.handle_chinese_chars === true;
  if (!lower && !cjk) return undefined;
  return (text) => {
    if (lower) text = text.replaceAll('\u03a3', '\u03c3');
    if (cjk) text = text.replace(ASTRAL_CJK, ' $& ');
    return text;
  };
}
