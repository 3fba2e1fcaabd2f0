/**
 * A model folder's tokenizer, for article texts: the transformers.js port of the Rust `tokenizers` library over
 * the folder's tokenizer.json as transformers 5 runs it (WordPiece, byte-level BPE, SentencePiece Unigram, the
 * BPE of Qwen, Gemma and Llama: tokenizer-classes.ts; checked against Python `tokenizers` and transformers'
 * AutoTokenizer: docs/dense.md), or, for a BERT folder with only vocab.txt, the
 * tokenizer.json Python's BertTokenizerFast builds from it (wordpiece.ts). Local files only; nothing is written
 * into the folder.
 *
 * An article is tokenised as the body ids of its text (no special tokens), cut so that the special tokens the
 * tokenizer's post-processor adds around one sequence ([CLS] … [SEP], <s> … </s>, <bos> … <eos>, Qwen3-Embedding's
 * appended <|endoftext|>) still fit the model's length:
 * what Python's `tokenizer(text, truncation=True, max_length=N)` returns.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as transformers from '@huggingface/transformers';
import { PreTrainedTokenizer } from '@huggingface/transformers';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { bertParityRewrite, bertTokenizerFromVocab, tokenizerFiles } from './wordpiece.ts';
import { PrecompiledCharsmap } from './precompiled.ts';
import { defaultSepToken, effectiveTokenizerJson, paddingSideOf, tokenText, unsupportedPart } from './tokenizer-classes.ts';

interface TokenizerJson {
  normalizer?: { type?: string; normalizers?: unknown[]; lowercase?: boolean } | null;
  added_tokens?: { id: number; content: string; special?: boolean }[];
  [k: string]: unknown;
}

interface JsTokenizer {
  encode(text: string, opts?: { add_special_tokens?: boolean }): number[];
}

export interface ArticleTokenizer {
  /** Ids of `text` without special tokens. */
  body(text: string): number[];
  /** Special tokens the post-processor puts before and after one sequence. */
  prefix: number[];
  suffix: number[];
  /**
   * The tokenizer's `sep_token` as text (`[SEP]`, `</s>`): an article is `title + sep_token + abstract`. A
   * tokenizer without one (Qwen, Gemma, Llama) joins them with a single space, as MTEB joins a retrieval corpus's
   * title and text: `sepSource` says which.
   */
  sepToken: string;
  sepSource: 'tokenizer' | 'space';
  /** The side transformers pads a batch on (tokenizer_config.json `padding_side`, else the class's: paddingSideOf). */
  paddingSide: 'left' | 'right';
  /** Ids of the special (added) tokens. */
  specialIds: Set<number>;
  /** The id of a token given as its vocabulary string (transformers' convert_tokens_to_ids), added tokens included. */
  tokenId(token: string): number | undefined;
}

export interface TokenizerOptions {
  /**
   * sentence-transformers' `do_lower_case`: a Lowercase normalizer in front of the tokenizer's own unless it
   * already lower-cases (6.x base/modules/transformer.py).
   */
  lowercase?: boolean;
}

function readJson(path: string): Record<string, unknown> {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
    return v as Record<string, unknown>;
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot read it (${(e as Error).message})`);
  }
}

/** Whether a normalizer lower-cases (sentence-transformers' `_has_lowercase`). */
function lowercases(n: unknown): boolean {
  const x = n as { type?: string; lowercase?: boolean; normalizers?: unknown[] } | null | undefined;
  if (!x) return false;
  if (x.type === 'Lowercase') return true;
  if (x.type === 'BertNormalizer') return x.lowercase === true;
  if (x.type === 'Sequence') return (x.normalizers ?? []).some(lowercases);
  return false;
}

/** Rust `to_lowercase` per character (JavaScript lower-cases a word-final Σ to ς; Rust always to σ). */
function lowerPerChar(text: string): string {
  let out = '';
  for (const ch of text) out += ch.toLowerCase();
  return out;
}

/**
 * Make transformers.js normalise as Rust `tokenizers` does, in place: a Precompiled normaliser by the real
 * charsmap (precompiled.ts) instead of NFKC, and Lowercase per character. BertNormalizer's two differences are
 * rewritten in the text instead (wordpiece.ts bertParityRewrite).
 */
function exactNormalizers(t: unknown, where: string): void {
  type N = { config?: { type?: string; precompiled_charsmap?: string }; normalizers?: unknown[]; normalize?: (s: string) => string } | null | undefined;
  const visit = (n: N) => {
    if (!n) return;
    if (n.config?.type === 'Sequence') for (const m of n.normalizers ?? []) visit(m as N);
    else if (n.config?.type === 'Precompiled' && typeof n.config.precompiled_charsmap === 'string') {
      const map = new PrecompiledCharsmap(n.config.precompiled_charsmap, where);
      n.normalize = (s) => map.normalize(s);
    } else if (n.config?.type === 'Lowercase') n.normalize = lowerPerChar;
  };
  visit((t as { _tokenizer?: { normalizer?: unknown } })._tokenizer?.normalizer as N);
}

/** Rust's `char::is_whitespace` (Unicode White_Space): JavaScript's \s lacks U+0085 and adds U+FEFF. */
const RUST_NON_WHITESPACE_RUNS = /[^\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;

/** Make transformers.js pre-tokenise as Rust `tokenizers` does, in place: WhitespaceSplit by Rust's white space. */
function exactPreTokenizers(t: unknown): void {
  type P = { tokenizers?: unknown[]; pre_tokenize_text?: (s: string) => string[] } | null | undefined;
  const visit = (p: P) => {
    if (!p) return;
    for (const m of p.tokenizers ?? []) visit(m as P);
    if (p.constructor.name === 'WhitespaceSplit') p.pre_tokenize_text = (s) => s.match(RUST_NON_WHITESPACE_RUNS) ?? [];
  };
  visit((t as { _tokenizer?: { pre_tokenizer?: unknown } })._tokenizer?.pre_tokenizer as P);
}

function readModelType(dir: string): string | undefined {
  const p = join(dir, 'config.json');
  if (!existsSync(p)) return undefined;
  const t = readJson(p).model_type;
  return typeof t === 'string' ? t : undefined;
}

/**
 * The folder's tokenizer as transformers 5 runs it (tokenizer-classes.ts), built by transformers.js with exact
 * normalisers.
 */
function loadJsTokenizer(
  dir: string,
  opts: TokenizerOptions,
): { tok: JsTokenizer; raw: JsTokenizer; rewrite?: (text: string) => string; json: TokenizerJson; config: Record<string, unknown>; cls: string; paddingSide: 'left' | 'right' } {
  const files = tokenizerFiles(dir);
  if (!files) throw new CitebenchError(`${dir}: no tokenizer (tokenizer.json or a BERT vocab.txt)`);
  let json: TokenizerJson;
  let config: Record<string, unknown>;
  let tokClass: string;
  let paddingSide: 'left' | 'right';
  if (files.kind === 'vocab.txt') {
    const built = bertTokenizerFromVocab(dir);
    json = built.json as unknown as TokenizerJson;
    config = built.config as unknown as Record<string, unknown>;
    tokClass = 'BertTokenizer';
    paddingSide = paddingSideOf(config, json, tokClass, join(dir, 'tokenizer_config.json'));
  } else {
    const cfgPath = join(dir, 'tokenizer_config.json');
    config = existsSync(cfgPath) ? readJson(cfgPath) : {};
    const fileJson = readJson(files.files[0]);
    const eff = effectiveTokenizerJson(fileJson, config, readModelType(dir), files.files[0]);
    json = eff.json as TokenizerJson;
    tokClass = eff.cls;
    paddingSide = paddingSideOf(config, fileJson, tokClass, cfgPath);
  }
  if (opts.lowercase && !lowercases(json.normalizer)) {
    const own = json.normalizer ? (json.normalizer.type === 'Sequence' ? (json.normalizer.normalizers ?? []) : [json.normalizer]) : [];
    json = { ...json, normalizer: { type: 'Sequence', normalizers: [{ type: 'Lowercase' }, ...own] } };
  }
  const unsupported = unsupportedPart(json as Record<string, unknown>);
  if (unsupported) {
    throw new CitebenchError(
      `${files.files[0]}: citebench cannot tokenise exactly with ${unsupported} (supported: WordPiece, BPE, Unigram with BERT, byte-level, Metaspace, precompiled-charsmap, NFC, Replace, Prepend, byte-fallback and Qwen/Llama-3 Split parts)`,
    );
  }
  // The transformers.js class of that name (as its AutoTokenizer picks one), else the base class.
  const exported = (transformers as unknown as Record<string, unknown>)[tokClass];
  const Ctor = (
    typeof exported === 'function' && (exported === PreTrainedTokenizer || exported.prototype instanceof PreTrainedTokenizer) ? exported : PreTrainedTokenizer
  ) as new (json: object, config: object) => JsTokenizer;
  let t: JsTokenizer;
  try {
    t = new Ctor(json, config);
  } catch (e) {
    throw new CitebenchError(`${files.files[0]}: cannot load the tokenizer (${(e as Error).message})`);
  }
  exactNormalizers(t, files.files[0]);
  exactPreTokenizers(t);
  const members = json.normalizer?.type === 'Sequence' ? (json.normalizer.normalizers ?? []) : [json.normalizer];
  const rewrite = members.map((n) => bertParityRewrite(n)).find((f) => f);
  const tok: JsTokenizer = rewrite ? { encode: (text, o) => t.encode(rewrite(text), o) } : t;
  return { tok, raw: t, ...(rewrite ? { rewrite } : {}), json, config, cls: tokClass, paddingSide };
}

/** The sep token's text: tokenizer_config.json, else special_tokens_map.json, else the class's default. */
function sepTokenOf(dir: string, config: Record<string, unknown>, cls: string): string | undefined {
  const own = tokenText(config.sep_token);
  if (own !== undefined) return own;
  const mapPath = join(dir, 'special_tokens_map.json');
  return (existsSync(mapPath) ? tokenText(readJson(mapPath).sep_token) : undefined) ?? defaultSepToken(cls);
}

export function loadArticleTokenizer(dir: string, opts: TokenizerOptions = {}): ArticleTokenizer {
  const { tok, json, config, cls, paddingSide } = loadJsTokenizer(dir, opts);
  // The post-processor's special tokens: where a plain text's ids sit inside its ids with special tokens.
  const probe = 'a b';
  const inner = tok.encode(probe, { add_special_tokens: false });
  const outer = tok.encode(probe, { add_special_tokens: true });
  let at = -1;
  for (let i = 0; i + inner.length <= outer.length && at < 0; i++) if (inner.every((x, j) => outer[i + j] === x)) at = i;
  if (at < 0 || inner.length === 0) throw new CitebenchError(`${dir}: the tokenizer's special tokens cannot be told apart from the text (probe ${JSON.stringify(probe)}: ${outer})`);
  const own = sepTokenOf(dir, config, cls);
  const specialIds = new Set((json.added_tokens ?? []).filter((t) => t.special).map((t) => t.id));
  return {
    body: (text) => tok.encode(text, { add_special_tokens: false }),
    prefix: outer.slice(0, at),
    suffix: outer.slice(at + inner.length),
    sepToken: own ?? ' ',
    sepSource: own === undefined ? 'space' : 'tokenizer',
    paddingSide,
    specialIds,
    tokenId: (token) => tokenIdOf(json, token),
  };
}

/** A token's id in tokenizer.json: an added token, else the model's vocabulary (an object, or Unigram's [piece, score] list). */
function tokenIdOf(json: TokenizerJson, token: string): number | undefined {
  const added = (json.added_tokens ?? []).find((t) => t.content === token);
  if (added) return added.id;
  const vocab = (json.model as { vocab?: unknown } | undefined)?.vocab;
  if (Array.isArray(vocab)) {
    const i = vocab.findIndex((e) => Array.isArray(e) && e[0] === token);
    return i < 0 ? undefined : i;
  }
  const v = vocab && typeof vocab === 'object' ? (vocab as Record<string, unknown>)[token] : undefined;
  return typeof v === 'number' && Object.hasOwn(vocab as object, token) ? v : undefined;
}

/**
 * Ids of `text` with the special tokens, the text cut to fit `maxLength` in all (Python's truncation=True): the
 * special tokens stay, before ([CLS], <bos>) and after ([SEP], Qwen3-Embedding's appended <|endoftext|>).
 */
export function encodeTruncated(t: ArticleTokenizer, text: string, maxLength: number): Int32Array {
  const body = t.body(text);
  const specials = t.prefix.length + t.suffix.length;
  // Below that, transformers 5.18 returns ids of no simple rule (measured: the text cut at its first special token
  // inside it, or not cut at all): refused rather than copied.
  if (maxLength < specials) throw new CitebenchError(`max length ${maxLength} cannot hold the tokenizer's ${specials} special tokens`);
  const n = Math.min(body.length, maxLength - specials);
  const ids = new Int32Array(t.prefix.length + n + t.suffix.length);
  ids.set(t.prefix, 0);
  for (let i = 0; i < n; i++) ids[t.prefix.length + i] = body[i];
  ids.set(t.suffix, t.prefix.length + n);
  return ids;
}

/**
 * A model folder's WordPiece tokenizer with its [CLS] and [SEP] ids (the cross-encoder's pair layout and
 * ASPIRE's segments need them by name); it must add exactly [CLS] … [SEP].
 */
export async function loadTokenizer(model: { dir: string }): Promise<{ tokenizer: JsTokenizer; cls: number; sep: number }> {
  const { tok } = loadJsTokenizer(model.dir, {});
  const special = tok.encode('', { add_special_tokens: true });
  if (special.length !== 2) throw new CitebenchError(`${model.dir}: tokenizer does not add [CLS] … [SEP] (got ${special})`);
  return { tokenizer: tok, cls: special[0], sep: special[1] };
}

/**
 * A model folder's tokenizer for (query, candidate) pairs, as a cross-encoder reads them: each text's body ids
 * (no special tokens) and the post-processor's pair template around them — BERT's `[CLS] A [SEP] B [SEP]` with
 * token types 0 then 1, RoBERTa's and XLM-R's `<s> A </s></s> B </s>`, ModernBERT's `[CLS] A [SEP] B [SEP]` —
 * read off the tokenizer transformers 5 runs (tokenizer-classes.ts) by encoding a probe pair.
 */
export interface PairTokenizer {
  /**
   * A text's body ids (no special tokens) as the Rust library tokenises it under truncation to `maxLength`: it
   * stops after the first pre-token (word) that brings the count to maxLength or more (tokenize_with_limit), so
   * the length the pair truncation compares is that count, not the text's full length.
   */
  body(text: string, maxLength: number): number[];
  prefix: number[];
  middle: number[];
  suffix: number[];
  /** Token types of each part of the template (all 0 where the template gives none). */
  types: { prefix: number[]; a: number; middle: number[]; b: number; suffix: number[] };
}

type Fn = (...args: unknown[]) => unknown;

export function loadPairTokenizer(dir: string, opts: TokenizerOptions = {}): PairTokenizer {
  const { tok, raw, rewrite } = loadJsTokenizer(dir, opts);
  // The pre-tokens' tokens, recorded while a body is encoded: transformers.js runs the model on each section's
  // pre-tokens in order (added tokens are sections of their own, never passed to the model).
  const inner = (raw as unknown as { _tokenizer: { model: Fn; encode: (t: string, o: object) => { ids: number[]; tokens: string[] } } })._tokenizer;
  let rec: string[][] | undefined;
  inner.model = new Proxy(inner.model, {
    apply(target, self, args) {
      if (!rec) return Reflect.apply(target, self, args);
      const out: string[] = [];
      for (const w of args[0] as string[]) {
        const t = Reflect.apply(target, self, [[w]]) as string[];
        rec.push(t);
        out.push(...t);
      }
      return out;
    },
  });
  const body = (text: string, maxLength: number): number[] => {
    const words: string[][] = (rec = []);
    let enc: { ids: number[]; tokens: string[] };
    try {
      enc = inner.encode(rewrite ? rewrite(text) : text, { add_special_tokens: false });
    } finally {
      rec = undefined;
    }
    if (enc.ids.length < maxLength) return enc.ids;
    // Walk the tokens split by split (a word's tokens, or one added token) to the first end ≥ maxLength.
    let p = 0;
    let w = 0;
    while (p < enc.tokens.length) {
      const word = words[w];
      if (word && word.every((t, j) => enc.tokens[p + j] === t)) {
        p += word.length;
        w++;
      } else p++;
      if (p >= maxLength) return enc.ids.slice(0, p);
    }
    return enc.ids;
  };
  const [pa, pb] = ['a b', 'c d'];
  const a = tok.encode(pa, { add_special_tokens: false });
  const b = tok.encode(pb, { add_special_tokens: false });
  const call = raw as unknown as (t: string, o: object) => { input_ids: number[] | { tolist(): number[] }; token_type_ids?: number[] | { tolist(): number[] } };
  const enc = call(pa, { text_pair: pb, add_special_tokens: true, return_token_type_ids: true, return_tensor: false });
  const list = (v: number[] | { tolist(): number[] } | undefined): number[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v.map(Number) : v.tolist().map(Number));
  const ids = list(enc.input_ids)!;
  const types = list(enc.token_type_ids) ?? new Array<number>(ids.length).fill(0);
  const at = (body: number[], from: number, last: boolean): number => {
    let found = -1;
    for (let i = from; i + body.length <= ids.length; i++) if (body.every((x, j) => ids[i + j] === x) && ((found = i), !last)) break;
    return found;
  };
  const i = a.length ? at(a, 0, false) : -1;
  const j = i >= 0 && b.length ? at(b, i + a.length, true) : -1;
  if (i < 0 || j < 0) throw new CitebenchError(`${dir}: the tokenizer's pair template cannot be told apart from the texts (probe ${JSON.stringify([pa, pb])}: ${ids})`);
  return {
    body,
    prefix: ids.slice(0, i),
    middle: ids.slice(i + a.length, j),
    suffix: ids.slice(j + b.length),
    types: { prefix: types.slice(0, i), a: types[i], middle: types.slice(i + a.length, j), b: types[j], suffix: types.slice(j + b.length) },
  };
}

/**
 * How many tokens of each body a pair keeps within `budget` (max length less the template's special tokens): the
 * Rust tokenizers library's TruncationStrategy::LongestFirst (utils/truncation.rs), which transformers' tokenizers
 * run for truncation='longest_first'. When the shorter body fits in half the budget it is kept and the longer is
 * cut to the rest; otherwise both are cut to half, the odd token going to the longer (to the second on a tie).
 */
export function longestFirst(na: number, nb: number, budget: number): [number, number] {
  if (na + nb <= budget) return [na, nb];
  const swap = na > nb;
  let n1 = swap ? nb : na;
  let n2 = n1 > budget ? n1 : Math.max(n1, budget - n1);
  if (n1 + n2 > budget) {
    n1 = Math.floor(budget / 2);
    n2 = n1 + (budget % 2);
  }
  return swap ? [n2, n1] : [n1, n2];
}

/**
 * Ids and token types of a (query, candidate) pair within `maxLength` tokens, as transformers' tokenizer(a, b,
 * truncation='longest_first', max_length) gives them (and CrossEncoder.predict: an empty text is an empty side).
 */
export function encodePair(t: PairTokenizer, a: string, b: string, maxLength: number): { ids: Int32Array; types: Int32Array } {
  const specials = t.prefix.length + t.middle.length + t.suffix.length;
  if (maxLength < specials) throw new CitebenchError(`max length ${maxLength} cannot hold the tokenizer's ${specials} special tokens of a pair`);
  const ba = t.body(a, maxLength);
  const bb = t.body(b, maxLength);
  const [na, nb] = longestFirst(ba.length, bb.length, maxLength - specials);
  const ids = [...t.prefix, ...ba.slice(0, na), ...t.middle, ...bb.slice(0, nb), ...t.suffix];
  const types = [...t.types.prefix, ...new Array<number>(na).fill(t.types.a), ...t.types.middle, ...new Array<number>(nb).fill(t.types.b), ...t.types.suffix];
  return { ids: Int32Array.from(ids), types: Int32Array.from(types) };
}
