/**
 * The tokenizer Python transformers 5 actually runs for a folder with a tokenizer.json — what sentence-
 * transformers and SciRepEval tokenise with. AutoTokenizer picks the class named by tokenizer_config.json
 * `tokenizer_class` or the one registered for config.json `model_type` (models/auto/tokenization_auto.py: when
 * both are given and differ, the registered class wins for the model types marked as carrying a wrong class on the
 * hub, the named one otherwise, and a registered generic class — mistral's, modernbert's — means the file as it
 * is). The classes with their own constructor rebuild the pipeline from their definition and the config's
 * settings, taking only the vocabulary (and merges) from tokenizer.json (tokenization_utils_tokenizers.py
 * `convert_to_native_format`):
 * - BertTokenizer (models/bert/tokenization_bert.py): BertNormalizer(lowercase = do_lower_case, default true;
 *   strip_accents; tokenize_chinese_chars), BertPreTokenizer, WordPiece(unk_token), [CLS] $A [SEP];
 * - RobertaTokenizer: no normaliser, ByteLevel(add_prefix_space, default false), BPE without unk,
 *   RobertaProcessing;
 * - XLMRobertaTokenizer: the file's Precompiled charsmap alone, WhitespaceSplit + Metaspace(▁, always),
 *   Unigram(unk_id 3), <s> $A </s>;
 * - Qwen2Tokenizer (models/qwen2): NFC, Split(Qwen's regex, isolated) + ByteLevel(add_prefix_space, default
 *   false; no regex), BPE without unk or byte fallback;
 * - GemmaTokenizer (models/gemma): Replace(" " → "▁"), Split(" ", merged with previous), BPE(unk_token, fuse_unk,
 *   byte_fallback);
 * - LlamaTokenizer (models/llama): no normaliser, Metaspace(▁, prepend_scheme first — always with legacy true,
 *   never with add_prefix_space false — no split), BPE(fuse_unk, byte_fallback, no unk).
 * Those last three keep the file's post-processor (`post_processor` passed to TokenizersBackend): Qwen3-Embedding's
 * `$A <|endoftext|>`, EmbeddingGemma's `<bos> $A <eos>`. tokenizer_config.json's add_bos_token/add_eos_token do
 * not count where there is a tokenizer.json (tokenization_utils_base.py `_from_pretrained` drops them); a file
 * without post-processor adds nothing. Their added tokens are the config's `added_tokens_decoder` (else the
 * file's `added_tokens`) and the named special tokens (bos/eos/unk/pad/… with the class's defaults).
 * Any other class (PreTrainedTokenizerFast — ModernBERT's, Llama 3's —, TokenizersBackend, and the classes
 * without a constructor of their own) uses tokenizer.json as it is. So does transformers.js, which reads the file
 * the same way.
 */

import { CitebenchError, InputError } from '../../util/errors.ts';

type Json = Record<string, unknown>;

/** The class AutoTokenizer registers for a model_type (transformers 5.18 TOKENIZER_MAPPING_NAMES, the families here). */
const BY_MODEL_TYPE: Record<string, string> = {
  bert: 'BertTokenizer', nomic_bert: 'BertTokenizer', roberta: 'RobertaTokenizer', 'xlm-roberta': 'XLMRobertaTokenizer',
  qwen2: 'Qwen2Tokenizer', qwen2_moe: 'Qwen2Tokenizer', qwen3: 'Qwen2Tokenizer', qwen3_moe: 'Qwen2Tokenizer', qwen3_next: 'Qwen2Tokenizer',
  gemma: 'GemmaTokenizer', gemma2: 'GemmaTokenizer', gemma3: 'GemmaTokenizer', gemma3_text: 'GemmaTokenizer', gemma3n: 'GemmaTokenizer', gemma3n_text: 'GemmaTokenizer',
  mistral: 'TokenizersBackend', mixtral: 'TokenizersBackend', modernbert: 'TokenizersBackend',
};
/** Model types whose hub tokenizer_class transformers overrides with the registered one (MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS). */
const WRONG_HUB_CLASS = new Set(['qwen2', 'modernbert']);
/** Registered classes that mean "the file as it is" when the hub names another class. */
const GENERIC = new Set(['TokenizersBackend', 'PythonBackend', 'PreTrainedTokenizerFast', 'MistralCommonBackend']);
const REBUILT = new Set(['BertTokenizer', 'RobertaTokenizer', 'XLMRobertaTokenizer', 'Qwen2Tokenizer', 'GemmaTokenizer', 'LlamaTokenizer']);

/** transformers 5.18 models/qwen2/tokenization_qwen2.py PRETOKENIZE_REGEX. */
export const QWEN2_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** Llama 3's (and GPT-4's cl100k) Split regex: the same with digits in runs of up to three. */
export const LLAMA3_REGEX = QWEN2_REGEX.replace('|\\p{N}|', '|\\p{N}{1,3}|');
/** Split regexes whose transformers.js translation is checked against Rust `tokenizers` (decoder-tokenizers.test.ts). */
const CHECKED_SPLIT_REGEXES = new Set([QWEN2_REGEX, LLAMA3_REGEX]);

/** A special token as a tokenizer config writes it: a string or an AddedToken object with `content`; else `dflt`. */
export function tokenText(v: unknown): string | undefined;
export function tokenText(v: unknown, dflt: string): string;
export function tokenText(v: unknown, dflt?: string): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return dflt;
}

/** The class AutoTokenizer instantiates, as far as citebench's tokenisation depends on it (AutoTokenizer.from_pretrained). */
export function tokenizerClass(config: Json, modelType: string | undefined): string {
  const named = typeof config.tokenizer_class === 'string' ? config.tokenizer_class.replace(/Fast$/, '') : undefined;
  const registered = modelType !== undefined && Object.hasOwn(BY_MODEL_TYPE, modelType) ? BY_MODEL_TYPE[modelType] : undefined;
  if (named !== undefined && registered !== undefined && named !== registered) {
    // e5-mistral names LlamaTokenizer for model_type mistral: the generic backend runs its tokenizer.json as it is.
    if (GENERIC.has(registered)) return 'TokenizersBackend';
    return WRONG_HUB_CLASS.has(modelType!) ? registered : named;
  }
  return named ?? registered ?? 'PreTrainedTokenizerFast';
}

/** The side transformers pads on: tokenizer_config.json, else tokenizer.json's padding, else the class's own. */
export function paddingSideOf(config: Json, json: Json, cls: string, where: string): 'left' | 'right' {
  const v = config.padding_side;
  if (v !== undefined && v !== null) {
    if (v !== 'left' && v !== 'right') throw new InputError(where, undefined, 'padding_side', `must be "left" or "right", not ${JSON.stringify(v)}`);
    return v;
  }
  const dir = (json.padding as Json | null | undefined)?.direction;
  if (dir === 'Left' || dir === 'Right') return dir === 'Left' ? 'left' : 'right';
  // GemmaTokenizer and LlamaTokenizer declare padding_side = "left"; the base class pads on the right.
  return cls === 'GemmaTokenizer' || cls === 'LlamaTokenizer' ? 'left' : 'right';
}

/** The special tokens a class defaults to when tokenizer_config.json names none. */
export function defaultSepToken(cls: string): string | undefined {
  return cls === 'BertTokenizer' ? '[SEP]' : cls === 'RobertaTokenizer' || cls === 'XLMRobertaTokenizer' ? '</s>' : undefined;
}

function idOf(json: Json, token: string, fallback?: number): number {
  return lookupId(json, token) ?? fallback ?? 0;
}

/** A token's id: its added token's, else the vocabulary's (a WordPiece/BPE map or a Unigram list). */
function lookupId(json: Json, token: string): number | undefined {
  const added = (json.added_tokens as { id: number; content: string }[] | undefined)?.find((t) => t.content === token);
  if (added) return added.id;
  const vocab = (json.model as Json).vocab;
  if (Array.isArray(vocab)) {
    const i = vocab.findIndex((e) => Array.isArray(e) && e[0] === token);
    if (i >= 0) return i;
  } else if (vocab && typeof vocab === 'object' && Object.hasOwn(vocab, token) && typeof (vocab as Record<string, unknown>)[token] === 'number') return (vocab as Record<string, number>)[token];
  return undefined;
}

/** Normalizers of a tokenizer.json `normalizer` (a Sequence's members, or itself). */
function normalizersOf(n: unknown): Json[] {
  const x = n as Json | null | undefined;
  if (!x) return [];
  return x.type === 'Sequence' ? ((x.normalizers as Json[]) ?? []) : [x];
}

/**
 * tokenizer.json as transformers 5 runs it for this tokenizer_config.json and model_type: rebuilt for the
 * classes above, unchanged otherwise.
 */
export function effectiveTokenizerJson(json: Json, config: Json, modelType: string | undefined, where = 'tokenizer.json'): { json: Json; cls: string } {
  const cls = tokenizerClass(config, modelType);
  if (!REBUILT.has(cls)) return { json, cls };
  if (cls === 'Qwen2Tokenizer' || cls === 'GemmaTokenizer' || cls === 'LlamaTokenizer') return { cls, json: rebuildBpeClass(json, config, cls, where) };
  const model = json.model as Json;
  const bool = (k: string, d: boolean) => (typeof config[k] === 'boolean' ? (config[k] as boolean) : d);
  if (cls === 'BertTokenizer') {
    const clsTok = tokenText(config.cls_token, '[CLS]');
    const sepTok = tokenText(config.sep_token, '[SEP]');
    const cid = idOf(json, clsTok, 2);
    const sid = idOf(json, sepTok, 3);
    const strip = config.strip_accents;
    return {
      cls,
      json: {
        ...json,
        normalizer: {
          type: 'BertNormalizer', clean_text: true, handle_chinese_chars: bool('tokenize_chinese_chars', true),
          strip_accents: typeof strip === 'boolean' ? strip : null, lowercase: bool('do_lower_case', true),
        },
        pre_tokenizer: { type: 'BertPreTokenizer' },
        model: { type: 'WordPiece', unk_token: tokenText(config.unk_token, '[UNK]'), continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: model.vocab },
        post_processor: {
          type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: clsTok, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: sepTok, type_id: 0 } }],
          pair: [
            { SpecialToken: { id: clsTok, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: sepTok, type_id: 0 } },
            { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: sepTok, type_id: 1 } },
          ],
          special_tokens: { [clsTok]: { id: clsTok, ids: [cid], tokens: [clsTok] }, [sepTok]: { id: sepTok, ids: [sid], tokens: [sepTok] } },
        },
      },
    };
  }
  if (cls === 'RobertaTokenizer') {
    const addPrefix = bool('add_prefix_space', false);
    const trim = bool('trim_offsets', true);
    const clsTok = tokenText(config.cls_token, '<s>');
    const sepTok = tokenText(config.sep_token, '</s>');
    return {
      cls,
      json: {
        ...json,
        normalizer: null,
        pre_tokenizer: { type: 'ByteLevel', add_prefix_space: addPrefix, trim_offsets: trim, use_regex: true },
        model: {
          type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false,
          ignore_merges: false, vocab: model.vocab, merges: model.merges,
        },
        post_processor: { type: 'RobertaProcessing', sep: [sepTok, idOf(json, sepTok)], cls: [clsTok, idOf(json, clsTok)], trim_offsets: trim, add_prefix_space: addPrefix },
      },
    };
  }
  // XLMRobertaTokenizer
  const precompiled = normalizersOf(json.normalizer).find((n) => n.type === 'Precompiled' && typeof n.precompiled_charsmap === 'string');
  const scheme = bool('add_prefix_space', true) ? 'always' : 'never';
  const bos = tokenText(config.bos_token, '<s>');
  const eos = tokenText(config.eos_token, '</s>');
  return {
    cls,
    json: {
      ...json,
      normalizer: precompiled ? { type: 'Precompiled', precompiled_charsmap: precompiled.precompiled_charsmap } : null,
      pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Metaspace', replacement: '▁', prepend_scheme: scheme, split: true }] },
      model: { type: 'Unigram', unk_id: 3, vocab: model.vocab, byte_fallback: false },
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } }],
        pair: [
          { SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } },
          { SpecialToken: { id: eos, type_id: 0 } }, { Sequence: { id: 'B', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } },
        ],
        special_tokens: { [bos]: { id: bos, ids: [idOf(json, bos)], tokens: [bos] }, [eos]: { id: eos, ids: [idOf(json, eos)], tokens: [eos] } },
      },
    },
  };
}

/** The named special tokens each class defaults to (its constructor's keyword defaults). */
const SPECIAL_DEFAULTS: Record<string, Record<string, string | null>> = {
  Qwen2Tokenizer: { unk_token: '<|endoftext|>', bos_token: null, eos_token: '<|endoftext|>', pad_token: '<|endoftext|>' },
  GemmaTokenizer: { unk_token: '<unk>', bos_token: '<bos>', eos_token: '<eos>', pad_token: '<pad>', mask_token: '<mask>' },
  LlamaTokenizer: { unk_token: '<unk>', bos_token: '<s>', eos_token: '</s>' },
};
const SPECIAL_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

interface AddedTok { id: number; content: string; single_word: boolean; lstrip: boolean; rstrip: boolean; normalized: boolean; special: boolean }

/**
 * The added tokens of a rebuilt tokenizer (TokenizersBackend.__init__ over a tokenizer built from the vocabulary
 * alone): tokenizer_config.json's added_tokens_decoder (else tokenizer.json's added_tokens) in id order, then each
 * named special token not among them, at its vocabulary id, special and not normalised. Qwen2Tokenizer re-adds its
 * named special tokens plain (no lstrip/rstrip, not normalised, special); Gemma and Llama keep their flags. Tokens
 * outside the vocabulary are numbered again, consecutively after it: ids that do not follow so, and a named token
 * outside the vocabulary (a new id no model has), are refused.
 */
function rebuiltAddedTokens(json: Json, config: Json, cls: string, where: string): AddedTok[] {
  const flag = (t: Json, k: string, d: boolean) => (typeof t[k] === 'boolean' ? (t[k] as boolean) : d);
  const fromDict = (id: number, t: Json): AddedTok => {
    const special = flag(t, 'special', false);
    return { id, content: String(t.content), single_word: flag(t, 'single_word', false), lstrip: flag(t, 'lstrip', false), rstrip: flag(t, 'rstrip', false), normalized: flag(t, 'normalized', !special), special };
  };
  const dec = config.added_tokens_decoder;
  const list: AddedTok[] = (
    dec && typeof dec === 'object' && !Array.isArray(dec)
      ? Object.entries(dec as Record<string, Json>).map(([id, t]) => fromDict(Number(id), t))
      : ((json.added_tokens as Json[] | undefined) ?? []).map((t) => fromDict(t.id as number, t))
  ).sort((a, b) => a.id - b.id);
  const vocab = (json.model as Json).vocab as Record<string, number>;
  const size = Object.keys(vocab).length;
  let next = size;
  for (const t of list) {
    if (Object.hasOwn(vocab, t.content)) t.id = vocab[t.content]!;
    else if (t.id !== next) {
      throw new CitebenchError(`${where}: added token ${JSON.stringify(t.content)} has id ${t.id}, but ${cls} numbers the added tokens consecutively after the vocabulary (it would get ${next})`);
    } else next++;
  }
  const named: [string, unknown][] = SPECIAL_KEYS.map((k) => [k, Object.hasOwn(config, k) ? config[k] : SPECIAL_DEFAULTS[cls]?.[k]]);
  for (const k of ['additional_special_tokens', 'extra_special_tokens']) if (Array.isArray(config[k])) for (const v of config[k] as unknown[]) named.push([k, v]);
  for (const [key, v] of named) {
    const content = v === null || v === undefined ? undefined : tokenText(v, '');
    if (!content) continue;
    const plain = (id: number): AddedTok => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
    const at = list.findIndex((t) => t.content === content);
    if (at >= 0) {
      if (cls === 'Qwen2Tokenizer') list[at] = plain(list[at]!.id);
      continue;
    }
    if (!Object.hasOwn(vocab, content)) {
      throw new CitebenchError(`${where}: ${cls}'s ${key} ${JSON.stringify(content)} is neither an added token nor in the vocabulary (transformers would give it a new id no model has)`);
    }
    list.push(cls !== 'Qwen2Tokenizer' && v && typeof v === 'object' ? { ...fromDict(vocab[content]!, v as Json), special: true } : plain(vocab[content]!));
  }
  return list.sort((a, b) => a.id - b.id);
}

/** Qwen2Tokenizer, GemmaTokenizer, LlamaTokenizer: their pipeline over the file's BPE vocabulary and merges; the file's post-processor. */
function rebuildBpeClass(json: Json, config: Json, cls: string, where: string): Json {
  const model = json.model as Json | undefined;
  if (!model || model.type !== 'BPE' || !Array.isArray(model.merges)) {
    throw new CitebenchError(`${where}: ${cls} rebuilds a BPE tokenizer from the file's vocabulary and merges, but its model is ${JSON.stringify(model?.type ?? null)}`);
  }
  let vocab = model.vocab;
  if (Array.isArray(vocab)) vocab = Object.fromEntries(vocab.map((e, i) => [Array.isArray(e) ? e[0] : e, i]));
  const bpe = { type: 'BPE', dropout: null, continuing_subword_prefix: null, end_of_word_suffix: null, ignore_merges: false, vocab, merges: model.merges };
  const withVocab = { ...json, model: { ...model, vocab } };
  const added_tokens = rebuiltAddedTokens(withVocab, config, cls, where);
  if (cls === 'Qwen2Tokenizer') {
    const addPrefix = typeof config.add_prefix_space === 'boolean' ? config.add_prefix_space : false;
    return {
      ...json, added_tokens,
      normalizer: { type: 'NFC' },
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { Regex: QWEN2_REGEX }, behavior: 'Isolated', invert: false },
          { type: 'ByteLevel', add_prefix_space: addPrefix, trim_offsets: true, use_regex: false },
        ],
      },
      model: { ...bpe, unk_token: null, fuse_unk: false, byte_fallback: false },
    };
  }
  if (cls === 'GemmaTokenizer') {
    return {
      ...json, added_tokens,
      normalizer: { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      pre_tokenizer: { type: 'Split', pattern: { String: ' ' }, behavior: 'MergedWithPrevious', invert: false },
      model: { ...bpe, unk_token: tokenText(config.unk_token, '<unk>'), fuse_unk: true, byte_fallback: true },
    };
  }
  // LlamaTokenizer: _get_prepend_scheme(add_prefix_space (default true), legacy (default false)).
  const addPrefix = typeof config.add_prefix_space === 'boolean' ? config.add_prefix_space : true;
  const legacy = Boolean(config.legacy);
  return {
    ...json, added_tokens,
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: addPrefix ? (legacy ? 'always' : 'first') : 'never', split: false },
    model: { ...bpe, unk_token: null, fuse_unk: true, byte_fallback: true },
  };
}

/**
 * The tokenizer.json component types citebench tokenises exactly as Rust `tokenizers` (tested against
 * AutoTokenizer: test/dense/tokenizers.test.ts). transformers.js guesses a model it does not know from the
 * vocabulary and skips unknown parts, which would give other ids without a word; so anything else is refused.
 */
const SUPPORTED: Record<string, { key: string; types: Set<string> }> = {
  model: { key: 'model', types: new Set(['WordPiece', 'BPE', 'Unigram']) },
  normalizer: { key: 'normalizers', types: new Set(['BertNormalizer', 'Precompiled', 'Replace', 'Lowercase', 'NFC', 'Prepend', 'Sequence']) },
  pre_tokenizer: { key: 'pretokenizers', types: new Set(['BertPreTokenizer', 'ByteLevel', 'Metaspace', 'WhitespaceSplit', 'Split', 'Sequence']) },
  post_processor: { key: 'processors', types: new Set(['TemplateProcessing', 'RobertaProcessing', 'BertProcessing', 'ByteLevel', 'Sequence']) },
};

/** The byte tokens of a byte_fallback BPE (Rust `format!("<{b:#04X}>")`). */
const BYTE_TOKENS = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);

/** A component and its members, flattened (a Sequence's members in order). */
function flat(x: unknown, key: string): Json[] {
  const j = x as Json | null | undefined;
  if (!j) return [];
  return j.type === 'Sequence' ? ((j[key] as unknown[]) ?? []).flatMap((m) => flat(m, key)) : [j];
}

/** The first component of `json` (as it will be run) of a type citebench does not tokenise exactly, as text. */
export function unsupportedPart(json: Json): string | undefined {
  for (const [part, { key, types }] of Object.entries(SUPPORTED)) {
    const visit = (x: unknown): string | undefined => {
      if (x === null || x === undefined) return part === 'model' ? `${part} missing` : undefined;
      const t = (x as Json).type;
      if (typeof t !== 'string' || !types.has(t)) return `${part} type ${JSON.stringify(t ?? null)}`;
      if (t === 'Sequence') for (const m of ((x as Json)[key] as unknown[]) ?? []) {
        const bad = visit(m);
        if (bad) return bad;
      }
      return undefined;
    };
    const bad = visit(json[part]);
    if (bad) return bad;
  }
  const model = json.model as Json;
  if (model.type === 'BPE' && model.dropout !== null && model.dropout !== undefined) return 'model BPE with dropout (random ids)';
  return unsupportedDetail(json);
}

/** The settings of supported component types that transformers.js does not run as Rust `tokenizers` does. */
function unsupportedDetail(json: Json): string | undefined {
  const model = json.model as Json;
  const added = (json.added_tokens as AddedTok[] | undefined) ?? [];
  const normalizers = flat(json.normalizer, 'normalizers');
  const pres = flat(json.pre_tokenizer, 'pretokenizers');
  for (const p of pres) {
    if (p.type === 'Split') {
      const pattern = (p.pattern ?? {}) as Json;
      if (typeof pattern.Regex === 'string') {
        // transformers.js translates Oniguruma to JavaScript; only the translations checked against Rust pass.
        if (!CHECKED_SPLIT_REGEXES.has(pattern.Regex)) return `pre_tokenizer Split with a regex citebench has not checked (${JSON.stringify(pattern.Regex.slice(0, 40))}…)`;
        if (p.behavior !== 'Isolated' || p.invert !== false) return `pre_tokenizer Split with behavior ${JSON.stringify(p.behavior)} invert ${JSON.stringify(p.invert)}`;
      } else {
        // Gemma's Split(" ") after its normaliser replaced every " ": it never splits (transformers.js would split
        // "merged with previous" as "isolated").
        const last = normalizers.at(-1);
        const s = pattern.String;
        const removed = typeof s === 'string' && s !== '' && last?.type === 'Replace' && (last.pattern as Json | undefined)?.String === s && typeof last.content === 'string' && !last.content.includes(s);
        if (!removed) return `pre_tokenizer Split on ${JSON.stringify(pattern)} with behavior ${JSON.stringify(p.behavior)}`;
      }
    }
    if (p.type === 'ByteLevel' && p.add_prefix_space === true && pres.length > 1) return 'pre_tokenizer ByteLevel with add_prefix_space after another pre-tokenizer';
    if (p.type === 'Metaspace') {
      // transformers.js never splits at ▁ (a BPE merge could cross it) and tells "first" by section, not offset.
      if (p.split !== false && model.type === 'BPE') return 'pre_tokenizer Metaspace with split over a BPE model';
      if (p.prepend_scheme === 'first' && added.some((t) => t.normalized)) return 'pre_tokenizer Metaspace prepend_scheme first with normalized added tokens';
    }
  }
  if (model.type === 'BPE' && model.byte_fallback === true) {
    const vocab = (model.vocab ?? {}) as Record<string, number>;
    const missing = BYTE_TOKENS.find((b) => !Object.hasOwn(vocab, b));
    if (missing) return `model BPE byte_fallback without the byte token ${missing}`;
    // Rust falls back to bytes before merging, transformers.js after: the same unless a merge joins byte tokens.
    const bytes = new Set(BYTE_TOKENS);
    for (const m of (model.merges as unknown[]) ?? []) {
      const parts = Array.isArray(m) ? (m as string[]) : String(m).split(' ');
      if (parts.some((x) => bytes.has(x))) return `model BPE byte_fallback with a merge of byte tokens (${parts.join(' ')})`;
    }
  }
  const posts = flat(json.post_processor, 'processors');
  if (posts.filter((p) => p.type !== 'ByteLevel').length > 1) return 'post_processor Sequence of more than one template';
  for (const p of posts) {
    if (p.type !== 'TemplateProcessing') continue;
    // transformers.js looks a template's special token up by its text; Rust uses the ids the template lists.
    const specials = (p.special_tokens ?? {}) as Record<string, { ids?: unknown[]; tokens?: unknown[] }>;
    for (const item of (p.single as Json[]) ?? []) {
      const sp = item.SpecialToken as { id?: string } | undefined;
      if (!sp) continue;
      const id = String(sp.id);
      const entry = specials[id];
      const own = lookupId(json, id);
      if (!entry || entry.ids?.length !== 1 || entry.tokens?.length !== 1 || entry.ids[0] !== own) {
        return `post_processor TemplateProcessing special token ${JSON.stringify(id)} with ids ${JSON.stringify(entry?.ids ?? null)} (the vocabulary has ${own ?? 'none'})`;
      }
    }
  }
  return undefined;
}
