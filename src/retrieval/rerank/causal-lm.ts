/**
 * A causal LM as a reranker: the pair is written into the model's prompt and scored by the logits of a "true" and
 * a "false" token at the last position. Two folder forms:
 * - a sentence-transformers 6 CrossEncoder folder (modules.json: a Transformer with transformer_task
 *   text-generation, then LogitScore): the pair becomes the chat messages `query` and `document` (sentence-
 *   transformers' pair roles; a system message before them when the folder's default prompt or --instruction is
 *   set), rendered by the tokenizer's chat template exactly as transformers renders it (@huggingface/jinja with the
 *   variables apply_chat_template passes), tokenised without special tokens, cut on the right to the model's max
 *   length with the template's tail written back over a cut row's last tokens (sentence-transformers'
 *   `_restore_chat_template_suffix`); score = logit(true) − logit(false) (logit(true) alone when false_token_id is
 *   null), then the folder's activation (Sigmoid by default);
 * - a bare *ForCausalLM folder (Qwen/Qwen3-Reranker-*): the model card's recipe — its system prefix,
 *   `<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {doc}` tokenised with truncation to max_length −
 *   prefix − suffix tokens, its suffix; score = P("yes") = softmax over the ("no", "yes") logits.
 * Batches are padded on the left (the last position is every row's last real token). The graph is the decoder
 * encoder-graph/ builds with a scoring head that computes only the selected tokens' logits, never the whole
 * vocabulary's (convert.ts caches it per head and token ids; int8 with `quantized`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Interpreter, Template } from '@huggingface/jinja';
import * as ort from 'onnxruntime-node';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { sha256 } from '../../util/identity.ts';
import { readJsonObject } from '../../util/json.ts';
import { convertCheckpoint } from '../dense/convert.ts';
import { createSession, tensorFloats, usesDynamicQuantization, type Device } from '../dense/encoder.ts';
import { fileContentHash } from '../dense/file-hash.ts';
import { tokenizerLimit } from '../dense/models.ts';
import { encodeTruncated, loadArticleTokenizer, type ArticleTokenizer } from '../dense/tokenizer.ts';
import type { RerankerOptions } from './options.ts';
import type { PairScorer } from './pair-scorer.ts';

export type { RerankerOptions } from './options.ts';

/**
 * citebench's instruction for citation recommendation (the Qwen3-Reranker card advises a task-specific one): the
 * query is an article's title and abstract, the document a candidate's, and "yes" means it is one the article cites.
 */
export const DEFAULT_RERANK_INSTRUCTION = 'Given the title and abstract of a scientific article, judge whether the candidate article is one that it cites';

/** The Qwen3-Reranker model card's prompt parts and its own default instruction. */
export const QWEN3_RERANKER = {
  prefix:
    '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n',
  suffix: '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
  cardInstruction: 'Given a web search query, retrieve relevant passages that answer the query',
  maxLength: 8192,
} as const;

export type CausalRerankerForm = 'logit-score' | 'qwen3-reranker';

type Json = Record<string, unknown>;


/** `true_token_id` and `false_token_id` of a LogitScore module's config.json. */
function readLogitScore(file: string): { trueId: number; falseId: number | undefined } {
  if (!existsSync(file)) throw new CitebenchError(`${file}: missing (the LogitScore module's true_token_id and false_token_id)`);
  const c = readJsonObject(file);
  const id = (key: string, nullable: boolean): number | undefined => {
    const v = c[key];
    if (nullable && (v === null || v === undefined)) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new InputError(file, undefined, key, `must be a token id (a non-negative integer), got ${JSON.stringify(v)}`);
    return v;
  };
  const name = c.module_input_name;
  if (name !== undefined && name !== 'causal_logits') throw new InputError(file, undefined, 'module_input_name', `${JSON.stringify(name)}: only the causal LM's logits ("causal_logits") are read`);
  return { trueId: id('true_token_id', false)!, falseId: id('false_token_id', true) };
}

/** sentence-transformers' activation by class path (6.x accepts torch.* paths). */
function activationOf(file: string, path: unknown): { name: string; f: (x: number) => number } {
  if (path === undefined || path === null) return { name: 'Sigmoid', f: sigmoid };
  const name = typeof path === 'string' ? path.split('.').at(-1) : undefined;
  if (typeof path === 'string' && path.startsWith('torch.')) {
    if (name === 'Sigmoid') return { name, f: sigmoid };
    if (name === 'Identity') return { name, f: (x) => x };
    if (name === 'Tanh') return { name, f: Math.tanh };
  }
  throw new InputError(file, undefined, 'activation_fn', `${JSON.stringify(path)}: citebench applies torch.nn Sigmoid, Identity or Tanh`);
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface CeFolder {
  transformerDir: string;
  trueId: number;
  falseId: number | undefined;
  activation: { name: string; f: (x: number) => number };
  maxSeqLength?: number;
  messageFormat?: 'flat' | 'structured';
  chatKwargs: Json;
  restoreSuffix: boolean;
  defaultPrompt?: string;
  files: string[];
}

/** A CrossEncoder folder with a LogitScore module, or undefined when `dir` has no modules.json. */
function readCeFolder(dir: string): CeFolder | undefined {
  const modulesFile = join(dir, 'modules.json');
  if (!existsSync(modulesFile)) return undefined;
  let mods: unknown;
  try {
    mods = JSON.parse(readFileSync(modulesFile, 'utf8'));
  } catch (e) {
    throw new InputError(modulesFile, undefined, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(mods) || mods.length === 0) throw new InputError(modulesFile, undefined, undefined, 'must be a non-empty list of modules');
  const type = (m: unknown) => (m && typeof m === 'object' ? String((m as Json).type ?? '') : '');
  const path = (m: unknown) => (m && typeof m === 'object' && typeof (m as Json).path === 'string' ? ((m as Json).path as string) : '');
  if (!type(mods[0]).endsWith('.Transformer')) throw new InputError(modulesFile, 1, 'type', `the first module must be a Transformer, got ${JSON.stringify(type(mods[0]))}`);
  const score = mods.findIndex((m) => type(m).endsWith('.LogitScore'));
  if (score < 0) throw new CitebenchError(`${modulesFile}: a causal-LM CrossEncoder folder needs a LogitScore module (the true/false token ids); modules: ${mods.map(type).join(', ')}`);
  if (mods.length !== 2 || score !== 1) throw new CitebenchError(`${modulesFile}: only Transformer → LogitScore is computed, got ${mods.map(type).join(' → ')}`);
  const transformerDir = path(mods[0]) ? join(dir, path(mods[0])) : dir;
  const scoreFile = join(dir, path(mods[1]), 'config.json');
  const ids = readLogitScore(scoreFile);
  const files = [modulesFile, scoreFile];
  const stFile = join(dir, 'config_sentence_transformers.json');
  const st = existsSync(stFile) ? readJsonObject(stFile) : {};
  if (existsSync(stFile)) files.push(stFile);
  const activation = activationOf(stFile, st.activation_fn);
  const prompts = st.prompts && typeof st.prompts === 'object' ? (st.prompts as Json) : {};
  const dpn = st.default_prompt_name;
  let defaultPrompt: string | undefined;
  if (typeof dpn === 'string') {
    if (typeof prompts[dpn] !== 'string') throw new InputError(stFile, undefined, 'default_prompt_name', `${JSON.stringify(dpn)} is not one of prompts (${Object.keys(prompts).join(', ') || 'none'})`);
    defaultPrompt = prompts[dpn] as string;
  }
  const sbFile = join(transformerDir, 'sentence_bert_config.json');
  const sb = existsSync(sbFile) ? readJsonObject(sbFile) : {};
  if (existsSync(sbFile)) files.push(sbFile);
  if (sb.transformer_task !== undefined && sb.transformer_task !== 'text-generation')
    throw new InputError(sbFile, undefined, 'transformer_task', `${JSON.stringify(sb.transformer_task)}: a LogitScore CrossEncoder reads a causal LM ("text-generation")`);
  const modality = (sb.modality_config ?? {}) as Json;
  // Without 'message' sentence-transformers tokenises the pair as a plain text pair: not this prompt at all.
  if (sb.modality_config !== undefined && !('message' in modality))
    throw new InputError(sbFile, undefined, 'modality_config', `has no "message" modality: the folder was saved without a chat template, so sentence-transformers feeds the pair as plain text without a prompt; citebench scores causal-LM pairs through the chat template only`);
  const fmt = (modality.message as Json | undefined)?.format;
  const processing = (sb.processing_kwargs ?? {}) as Json;
  const chatKwargs = { ...((processing.chat_template ?? {}) as Json) };
  const restoreSuffix = chatKwargs.restore_suffix !== false;
  delete chatKwargs.restore_suffix;
  for (const k of ['padding', 'truncation', 'max_length', 'return_tensors']) delete chatKwargs[k];
  const msl = sb.max_seq_length;
  return {
    transformerDir,
    ...ids,
    activation,
    ...(typeof msl === 'number' && Number.isInteger(msl) && msl > 0 ? { maxSeqLength: msl } : {}),
    ...(fmt === 'flat' || fmt === 'structured' ? { messageFormat: fmt } : {}),
    chatKwargs,
    restoreSuffix,
    ...(defaultPrompt ? { defaultPrompt } : {}),
    files,
  };
}

/** Which form `dir` is: a CrossEncoder folder with LogitScore, or a bare *ForCausalLM folder (the Qwen3-Reranker recipe). */
export function causalRerankerForm(dir: string): CausalRerankerForm {
  if (existsSync(join(dir, 'modules.json'))) return 'logit-score';
  const cfg = join(dir, 'config.json');
  if (!existsSync(cfg)) throw new CitebenchError(`${dir}: no config.json (a causal-LM reranker folder holds the model's config.json and weights)`);
  const arch = readJsonObject(cfg).architectures;
  if (!Array.isArray(arch) || !arch.some((a) => typeof a === 'string' && a.endsWith('ForCausalLM')))
    throw new InputError(cfg, undefined, 'architectures', `${JSON.stringify(arch)}: a bare reranker folder is a *ForCausalLM checkpoint (Qwen3-Reranker's recipe)`);
  return 'qwen3-reranker';
}

// @huggingface/jinja's `first`/`last` give JavaScript undefined for an empty list where Jinja gives Undefined (so
// `… | first | default(x)` throws): the filters return the interpreter's own undefined value there.
let jinjaPatched = false;
function patchJinja(): void {
  if (jinjaPatched) return;
  jinjaPatched = true;
  type Filter = (this: unknown, operand: unknown, node: unknown, env: { lookupVariable(n: string): unknown }) => unknown;
  const proto = Interpreter.prototype as unknown as { applyFilter: Filter };
  const original = proto.applyFilter;
  proto.applyFilter = function (operand, node, env) {
    const v = original.call(this, operand, node, env);
    return v === undefined ? env.lookupVariable('\u0000undefined') : v;
  };
}

/** tokenizer_config.json's chat template (chat_template.jinja wins, as transformers 5 loads them). */
function chatTemplateOf(dir: string): { source: string; file: string } {
  const jinja = join(dir, 'chat_template.jinja');
  if (existsSync(jinja)) return { source: readFileSync(jinja, 'utf8'), file: jinja };
  const cfgFile = join(dir, 'tokenizer_config.json');
  const t = existsSync(cfgFile) ? readJsonObject(cfgFile).chat_template : undefined;
  if (typeof t === 'string') return { source: t, file: cfgFile };
  if (Array.isArray(t)) {
    const d = t.find((x) => x && typeof x === 'object' && (x as Json).name === 'default') as Json | undefined;
    if (d && typeof d.template === 'string') return { source: d.template, file: cfgFile };
  }
  throw new CitebenchError(`${dir}: no chat template (chat_template.jinja or tokenizer_config.json chat_template): a causal-LM CrossEncoder renders its pairs with it`);
}

/** The named special tokens transformers passes a chat template (special_tokens_map): those the tokenizer config sets. */
export function chatTemplateVariables(dir: string): Json {
  const out: Json = {};
  const text = (v: unknown) => (typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as Json).content === 'string' ? ((v as Json).content as string) : undefined);
  const sources = [join(dir, 'special_tokens_map.json'), join(dir, 'tokenizer_config.json')].filter((f) => existsSync(f)).map((f) => readJsonObject(f));
  for (const key of ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'])
    for (const s of sources) {
      const t = text(s[key]);
      if (t !== undefined) out[key] = t;
    }
  return out;
}

/** sentence-transformers' message format: the folder's, else inferred from the template as its InputFormatter does. */
export function inferMessageFormat(template: string): 'flat' | 'structured' {
  return ['content[0]', '.type', "'type'", '"type"', 'item.type', 'message.content['].some((p) => template.includes(p)) ? 'structured' : 'flat';
}

interface Prompt {
  /** Token ids of one pair, as the model reads it (before padding). */
  ids(query: string, candidate: string): Int32Array;
  fingerprint: Json;
}

/**
 * A chat template as transformers renders it (Jinja with trim_blocks and lstrip_blocks, one trailing newline
 * dropped): a function of the template's variables (messages, add_generation_prompt, special tokens…).
 */
export function compileChatTemplate(source: string, file: string): (vars: Record<string, unknown>) => string {
  patchJinja();
  let template: Template;
  try {
    template = new Template(source);
  } catch (e) {
    throw new CitebenchError(`${file}: cannot parse the chat template (${(e as Error).message})`);
  }
  return (vars) => {
    try {
      return template.render({ add_generation_prompt: false, ...vars });
    } catch (e) {
      throw new CitebenchError(`${file}: the chat template failed on a (query, document) pair (${(e as Error).message})`);
    }
  };
}

function chatPrompt(ce: CeFolder, tok: ArticleTokenizer, maxLength: number, instruction: string | undefined): Prompt {
  const { source, file } = chatTemplateOf(ce.transformerDir);
  const template = compileChatTemplate(source, file);
  const format = ce.messageFormat ?? inferMessageFormat(source);
  const vars = { ...chatTemplateVariables(ce.transformerDir), ...ce.chatKwargs };
  const message = (role: string, text: string) => ({ role, content: format === 'flat' ? text : [{ type: 'text', text }] });
  const system = instruction ?? ce.defaultPrompt;
  const messages = (q: string, d: string) => [...(system ? [message('system', system)] : []), message('query', q), message('document', d)];
  const render = (q: string, d: string): string => template({ ...vars, messages: messages(q, d) });
  // sentence-transformers' template tail: the common token suffix of two renders with different fillers.
  const first = tok.body(render('0', '0'));
  const second = tok.body(render('1 2 3 4', '1 2 3 4'));
  let count = 0;
  while (count < Math.min(first.length, second.length) && first[first.length - 1 - count] === second[second.length - 1 - count]) count++;
  const tail = ce.restoreSuffix && count > 0 && count < Math.min(first.length, second.length) ? first.slice(first.length - count) : [];
  return {
    ids(q, d) {
      const all = tok.body(render(q, d));
      const ids = Int32Array.from(all.length > maxLength ? all.slice(0, maxLength) : all);
      // A row cut to max length gets the template's tail back over its last tokens.
      if (ids.length >= maxLength && tail.length > 0) {
        const keep = Math.min(tail.length, ids.length);
        ids.set(tail.slice(tail.length - keep), ids.length - keep);
      }
      return ids;
    },
    fingerprint: { form: 'logit-score', template: sha256().update(source).hex(16), format, system: system ?? null, vars, restoreSuffix: ce.restoreSuffix },
  };
}

function qwen3Prompt(tok: ArticleTokenizer, maxLength: number, instruction: string): Prompt {
  const prefix = tok.body(QWEN3_RERANKER.prefix);
  const suffix = tok.body(QWEN3_RERANKER.suffix);
  const budget = maxLength - prefix.length - suffix.length;
  if (budget < 1) throw new CitebenchError(`max length ${maxLength} cannot hold the Qwen3-Reranker prompt (${prefix.length + suffix.length} tokens of prefix and suffix)`);
  return {
    ids(q, d) {
      const body = encodeTruncated(tok, `<Instruct>: ${instruction}\n<Query>: ${q}\n<Document>: ${d}`, budget);
      const ids = new Int32Array(prefix.length + body.length + suffix.length);
      ids.set(prefix, 0);
      ids.set(body, prefix.length);
      ids.set(suffix, prefix.length + body.length);
      return ids;
    },
    fingerprint: { form: 'qwen3-reranker', instruction },
  };
}

/** A causal-LM reranker, as a PairScorer. */
export class CausalLmScorer implements PairScorer {
  readonly name: string;
  readonly fingerprint: string;
  readonly describe: string;

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly prompt: Prompt,
    private readonly score: (logits: Float32Array, row: number) => number,
    private readonly padId: number,
    private readonly batchSize: number,
    meta: { name: string; describe: string; fingerprint: Json },
  ) {
    this.name = meta.name;
    this.describe = meta.describe;
    this.fingerprint = JSON.stringify({ scorer: 'causal-lm', version: 1, ...meta.fingerprint, prompt: prompt.fingerprint });
  }

  /** Token ids of a pair exactly as the model reads it (before left padding). */
  pairIds(query: string, candidate: string): Int32Array {
    return this.prompt.ids(query, candidate);
  }

  async scoreTexts(pairs: readonly (readonly [query: string, candidate: string])[]): Promise<Float64Array> {
    const out = new Float64Array(pairs.length);
    const toks = pairs.map(([q, c]) => this.prompt.ids(q, c));
    // Longest first, ties by position: similar lengths share a batch; padding (left) is masked out.
    const order = Array.from(toks.keys()).sort((x, y) => toks[y].length - toks[x].length || x - y);
    for (let s = 0; s < order.length; s += this.batchSize) {
      const batch = order.slice(s, s + this.batchSize);
      const len = toks[batch[0]].length;
      const ids = new BigInt64Array(batch.length * len).fill(BigInt(this.padId));
      const mask = new BigInt64Array(batch.length * len);
      batch.forEach((p, r) => {
        const t = toks[p];
        const at = r * len + len - t.length;
        for (let j = 0; j < t.length; j++) {
          ids[at + j] = BigInt(t[j]);
          mask[at + j] = 1n;
        }
      });
      const res = await this.session.run({
        input_ids: new ort.Tensor('int64', ids, [batch.length, len]),
        attention_mask: new ort.Tensor('int64', mask, [batch.length, len]),
      });
      const logits = tensorFloats(res.logits);
      batch.forEach((p, r) => (out[p] = this.score(logits, r)));
    }
    return out;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}

/**
 * The reranker in `dir` (a resolved folder: a CrossEncoder root, or a bare *ForCausalLM folder): its graph
 * converted once from the checkpoint with the scoring head of its two tokens.
 */
export async function loadCausalReranker(dir: string, opts: RerankerOptions): Promise<PairScorer> {
  if (opts.fp16) throw new CitebenchError(`${dir}: a causal-LM reranker runs its converted graph in float32 or int8 (--quantized); --fp16-model does not apply`);
  if (opts.maxLength !== undefined && (!Number.isInteger(opts.maxLength) || opts.maxLength < 1)) throw new CitebenchError(`max length must be a positive integer, got ${opts.maxLength}`);
  const form = causalRerankerForm(dir);
  const ce = form === 'logit-score' ? readCeFolder(dir)! : undefined;
  const tdir = ce?.transformerDir ?? dir;
  const tok = loadArticleTokenizer(tdir);
  const tokCfg = join(tdir, 'tokenizer_config.json');
  // Both recipes cut the text's end (transformers' default truncation side); a left-truncating tokenizer would cut the prompt's frame.
  if (existsSync(tokCfg) && readJsonObject(tokCfg).truncation_side === 'left') throw new InputError(tokCfg, undefined, 'truncation_side', '"left": citebench truncates prompts on the right, as transformers does by default');
  if (opts.batchSize !== undefined && (!Number.isInteger(opts.batchSize) || opts.batchSize < 1)) throw new CitebenchError(`batch size must be a positive integer, got ${opts.batchSize}`);
  let prompt: Prompt;
  let tokenIds: number[];
  let score: (logits: Float32Array, row: number) => number;
  let describe: string;
  const maxLength = opts.maxLength ?? (ce ? (ce.maxSeqLength ?? tokenizerLimit(tdir)) : QWEN3_RERANKER.maxLength);
  if (maxLength === undefined) throw new CitebenchError(`${tdir}: no max length (tokenizer_config.json model_max_length, config.json max_position_embeddings); give one`);
  if (ce) {
    prompt = chatPrompt(ce, tok, maxLength, opts.instruction);
    const { trueId, falseId } = ce;
    tokenIds = falseId === undefined ? [trueId] : [trueId, falseId];
    const act = ce.activation.f;
    score = falseId === undefined ? (l, r) => act(l[r]) : (l, r) => act(l[2 * r] - l[2 * r + 1]);
    describe = `causal LM (CrossEncoder, LogitScore): ${falseId === undefined ? 'logit(true)' : 'logit(true) − logit(false)'}, ${ce.activation.name}`;
  } else {
    const yes = tok.tokenId('yes');
    const no = tok.tokenId('no');
    if (yes === undefined || no === undefined) throw new CitebenchError(`${tdir}: the tokenizer has no token "${yes === undefined ? 'yes' : 'no'}" (the Qwen3-Reranker recipe scores P("yes") against "no")`);
    prompt = qwen3Prompt(tok, maxLength, opts.instruction ?? DEFAULT_RERANK_INSTRUCTION);
    tokenIds = [no, yes];
    score = (l, r) => sigmoid(l[2 * r + 1] - l[2 * r]);
    describe = 'causal LM: P(yes) of the Qwen3-Reranker recipe';
  }
  const onnx = convertCheckpoint(tdir, { quantize: opts.quantized, causalLmHead: { tokenIds }, log: opts.log });
  const session = await createSession(onnx, opts);
  const padId = tok.tokenId('<|endoftext|>') ?? 0;
  // The converted file's folder is named by the config's, weights' and head's content; the prompt's files by theirs.
  const files = [...['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja'].map((f) => join(tdir, f)).filter((f) => existsSync(f)), ...(ce?.files ?? [])];
  // int8 with activations quantised at run time: one pair per pass, so a score does not depend on its batch-mates.
  return new CausalLmScorer(session, prompt, score, padId, usesDynamicQuantization(onnx) ? 1 : (opts.batchSize ?? 8), {
    name: basename(dir),
    describe: `${describe}${opts.quantized ? ', int8' : ''}; max length ${maxLength}`,
    fingerprint: { maxLength, tokenIds, graph: basename(dirname(onnx)), files: files.map((f) => [basename(f), fileContentHash(f)]) },
  });
}
