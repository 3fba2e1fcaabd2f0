/**
 * The tokenizer Python transformers 5 actually runs for a folder with a tokenizer.json — what sentence-
 * transformers and SciRepEval tokenise with. AutoTokenizer picks the class named by tokenizer_config.json
 * `tokenizer_class` (else the one registered for config.json `model_type`), and the classes with their own
 * constructor rebuild the pipeline from their definition and the config's settings, taking only the
 * vocabulary (and merges) from tokenizer.json (tokenization_utils_tokenizers.py `convert_to_native_format`):
 * - BertTokenizer (models/bert/tokenization_bert.py): BertNormalizer(lowercase = do_lower_case, default true;
 *   strip_accents; tokenize_chinese_chars), BertPreTokenizer, WordPiece(unk_token), [CLS] $A [SEP];
 * - RobertaTokenizer: no normaliser, ByteLevel(add_prefix_space, default false), BPE without unk,
 *   RobertaProcessing;
 * - XLMRobertaTokenizer: the file's Precompiled charsmap alone, WhitespaceSplit + Metaspace(▁, always),
 *   Unigram(unk_id 3), <s> $A </s>.
 * Any other class (PreTrainedTokenizerFast — ModernBERT's — and the classes without a constructor of their
 * own) uses tokenizer.json as it is. So does transformers.js, which reads the file the same way.
 */

type Json = Record<string, unknown>;

/** The classes rebuilt here, by the model_type AutoTokenizer registers them for. */
const BY_MODEL_TYPE: Record<string, string> = { bert: 'BertTokenizer', roberta: 'RobertaTokenizer', 'xlm-roberta': 'XLMRobertaTokenizer' };
const REBUILT = new Set(Object.values(BY_MODEL_TYPE));

function tokenText(v: unknown, dflt: string): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return dflt;
}

/** The class AutoTokenizer instantiates, as far as citebench's tokenisation depends on it. */
function tokenizerClass(config: Json, modelType: string | undefined): string {
  const named = typeof config.tokenizer_class === 'string' ? config.tokenizer_class.replace(/Fast$/, '') : undefined;
  return named ?? (modelType ? BY_MODEL_TYPE[modelType] : undefined) ?? 'PreTrainedTokenizerFast';
}

/** The special tokens a class defaults to when tokenizer_config.json names none. */
export function defaultSepToken(cls: string): string | undefined {
  return cls === 'BertTokenizer' ? '[SEP]' : cls === 'RobertaTokenizer' || cls === 'XLMRobertaTokenizer' ? '</s>' : undefined;
}

function idOf(json: Json, token: string, fallback?: number): number {
  const added = (json.added_tokens as { id: number; content: string }[] | undefined)?.find((t) => t.content === token);
  if (added) return added.id;
  const vocab = (json.model as Json).vocab;
  if (Array.isArray(vocab)) {
    const i = vocab.findIndex((e) => Array.isArray(e) && e[0] === token);
    if (i >= 0) return i;
  } else if (vocab && typeof vocab === 'object' && typeof (vocab as Record<string, unknown>)[token] === 'number') return (vocab as Record<string, number>)[token];
  return fallback ?? 0;
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
export function effectiveTokenizerJson(json: Json, config: Json, modelType: string | undefined): { json: Json; cls: string } {
  const cls = tokenizerClass(config, modelType);
  if (!REBUILT.has(cls)) return { json, cls };
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

/**
 * The tokenizer.json component types citebench tokenises exactly as Rust `tokenizers` (tested against
 * AutoTokenizer: test/dense/tokenizers.test.ts). transformers.js guesses a model it does not know from the
 * vocabulary and skips unknown parts, which would give other ids without a word; so anything else is refused.
 */
const SUPPORTED: Record<string, { key: string; types: Set<string> }> = {
  model: { key: 'model', types: new Set(['WordPiece', 'BPE', 'Unigram']) },
  normalizer: { key: 'normalizers', types: new Set(['BertNormalizer', 'Precompiled', 'Replace', 'Lowercase', 'Sequence']) },
  pre_tokenizer: { key: 'pretokenizers', types: new Set(['BertPreTokenizer', 'ByteLevel', 'Metaspace', 'WhitespaceSplit', 'Sequence']) },
  post_processor: { key: 'processors', types: new Set(['TemplateProcessing', 'RobertaProcessing', 'BertProcessing']) },
};

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
  return undefined;
}
