/**
 * Article encoder: the folder's tokenizer (tokenizer.ts) for input ids, an onnxruntime-node session called
 * directly for the forward pass (no pipeline overhead, explicit threads), and the model's pooling (pooling.ts, or
 * ASPIRE's sentence vectors). An article is encoded in a role — query or document — with that role's prompt in
 * front of its text (prompts.ts). Texts are sorted by token length inside each call so batches carry little
 * padding; results come back in input order. A float model's vector does not depend on the articles beside it in a
 * batch (attention masks exclude padding; measured bit-identical). An int8 export that quantises its activations
 * at run time (DynamicQuantizeLinear: one scale per batch tensor, padding rows included) would make it depend on
 * them, i.e. on how the work was split into calls, processes and shards: such a model encodes each article alone
 * (on CPU also the faster way for int8: no padding).
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { ArticleText } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { poolingSpecOf, type ResolvedModel } from './models.ts';
import { poolSequence, type PoolingSpec } from './pooling.ts';
import type { Role } from './prompts.ts';
import { splitSentences } from './sentences.ts';
import { decodeHalf } from './float16.ts';
import { encodeTruncated, loadArticleTokenizer, type ArticleTokenizer } from './tokenizer.ts';

/** ASPIRE's token budget for title + sentences (examples/ex_aspire_consent.py: max_num_toks = 500). */
const ASPIRE_MAX_TOKENS = 500;

/** Token ids of one article, with [CLS] … [SEP], and for ASPIRE the token spans of its abstract sentences. */
export interface TokenizedArticle {
  ids: Int32Array;
  /** ASPIRE only: [start, end) pairs into `ids`, one per sentence (flattened). */
  spans?: Int32Array;
}

/** Encoded vectors for a list of articles, in input order. Single-vector models have offsets[i] = i. */
export interface EncodedBatch {
  dim: number;
  /** offsets[i]..offsets[i+1] are article i's rows in `vectors`. */
  offsets: Uint32Array;
  vectors: Float32Array;
}

/** What an embedding store fills itself from: vectors of one role, under that role's store key. */
export interface ArticleEncoder {
  fingerprint: string;
  /** Progress label. */
  label: string;
  encode(articles: ArticleText[], onBatch?: (articles: number) => void): Promise<EncodedBatch>;
}

export interface EncoderOptions {
  /** Articles per forward pass (default 16; 1 for a model that quantises activations at run time: usesDynamicQuantization). */
  batchSize?: number;
  /** onnxruntime intra-op threads (default: all cores). */
  threads?: number;
  /** cpu (default); cuda: onnxruntime's CUDA execution provider, an error when absent; auto: cuda if present. */
  device?: Device;
  /** Told which device `auto` chose. */
  log?: (line: string) => void;
}

export type Device = 'cpu' | 'cuda' | 'auto';

export function parseDevice(v: string | undefined): Device {
  if (v === undefined) return 'cpu';
  if (v === 'cpu' || v === 'cuda' || v === 'auto') return v;
  throw new CitebenchError(`--device must be cpu, cuda or auto, got '${v}'`);
}

/**
 * Where onnxruntime-node's CUDA execution provider would be: the npm package ships the CPU runtime only and
 * fetches libonnxruntime_providers_cuda.so at install time (a machine with internet and the CUDA toolkit,
 * forced with ONNXRUNTIME_NODE_INSTALL=cuda12). Undefined when this installation has it.
 */
export function cudaProviderMissing(): string | undefined {
  let bin: string;
  try {
    const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
    bin = join(dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
  } catch {
    return 'onnxruntime-node is not installed';
  }
  const lib = join(bin, 'libonnxruntime_providers_cuda.so');
  return existsSync(lib) ? undefined : `${lib} is missing`;
}

const NO_CUDA_HINT =
  'onnxruntime-node downloads its CUDA provider when it is installed on a machine with internet access and the CUDA ' +
  'toolkit: run `ONNXRUNTIME_NODE_INSTALL=cuda12 npm rebuild onnxruntime-node` there (docs/cluster.md), or use --device cpu';

/**
 * An onnxruntime session for a model file on the asked device: cpu, cuda (an error naming the fix when this
 * installation has no CUDA provider or it cannot start) or auto (cuda when present, said through `log`).
 */
export async function createSession(onnxFile: string, opts: Pick<EncoderOptions, 'threads' | 'device' | 'log'> = {}): Promise<ort.InferenceSession> {
  let device = opts.device ?? 'cpu';
  const missing = device === 'cpu' ? undefined : cudaProviderMissing();
  if (device === 'cuda' && missing) throw new CitebenchError(`--device cuda: this onnxruntime-node installation has no CUDA execution provider (${missing}); ${NO_CUDA_HINT}`);
  if (device === 'auto') {
    device = missing ? 'cpu' : 'cuda';
    opts.log?.(`device auto: ${device}${missing ? ` (no CUDA execution provider: ${missing})` : ''}`);
  }
  try {
    return await ort.InferenceSession.create(onnxFile, {
      intraOpNumThreads: opts.threads ?? cpus().length,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // On CUDA, nodes the provider lacks fall back to the CPU provider, as onnxruntime places them.
      ...(device === 'cuda' ? { executionProviders: ['cuda', 'cpu'] } : {}),
    });
  } catch (e) {
    const msg = (e as Error).message;
    if (device === 'cuda') throw new CitebenchError(`--device cuda: onnxruntime could not start its CUDA execution provider for ${onnxFile} (${msg}); ${NO_CUDA_HINT}`);
    throw new CitebenchError(`${onnxFile}: onnxruntime cannot load it (${msg})`);
  }
}

/**
 * Whether an ONNX graph quantises activations at run time (a `DynamicQuantizeLinear` node, as optimum's and
 * onnxruntime's dynamic int8 quantisation and citebench's own int8 conversion write): its outputs for one row
 * then depend on the other rows of the batch. Found by the op type's bytes in the file (protobuf stores it as
 * plain text; external weights live in other files), read in slices until found.
 */
export function usesDynamicQuantization(onnxFile: string): boolean {
  const needle = Buffer.from('DynamicQuantizeLinear');
  const slice = 8 << 20;
  const buf = Buffer.alloc(slice + needle.length);
  const fd = openSync(onnxFile, 'r');
  try {
    let kept = 0; // the tail of the previous slice, so a name split across two slices is still found
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, kept, slice, pos);
      if (n === 0) return false;
      const end = kept + n;
      if (buf.subarray(0, end).includes(needle)) return true;
      pos += n;
      kept = Math.min(needle.length - 1, end);
      buf.copy(buf, 0, end - kept, end);
    }
  } finally {
    closeSync(fd);
  }
}

export class Encoder {
  /** Dimensions of an article vector. */
  readonly dim: number;
  private readonly pooling: PoolingSpec | undefined;
  /** Per role: its prompt, and how many leading tokens pooling leaves out (include_prompt false). */
  private readonly roles: Record<Role, { prompt: string; masked: number }>;

  private constructor(
    readonly model: ResolvedModel,
    private readonly tokenizer: ArticleTokenizer,
    private readonly session: ort.InferenceSession,
    private readonly batchSize: number,
    private readonly output: string,
  ) {
    this.dim = model.dim;
    this.pooling = poolingSpecOf(model);
    const role = (prompt: string) => ({ prompt, masked: this.pooling && !this.pooling.includePrompt && prompt ? this.promptLength(prompt) : 0 });
    this.roles = { query: role(model.prompts.query), document: role(model.prompts.document) };
  }

  static async load(model: ResolvedModel, opts: EncoderOptions = {}): Promise<Encoder> {
    const tokenizer = loadArticleTokenizer(model.transformerDir, { lowercase: model.lowercase });
    const session = await createSession(model.onnxFile, opts);
    for (const name of ['input_ids', 'attention_mask'])
      if (!session.inputNames.includes(name)) throw new CitebenchError(`${model.onnxFile}: ONNX input '${name}' missing (has ${session.inputNames})`);
    const output = model.pooling === 'aspire' && model.layers === 'all' ? 'mean_hidden_states' : 'last_hidden_state';
    if (!session.outputNames.includes(output))
      throw new CitebenchError(
        `${model.onnxFile}: ONNX output '${output}' missing (has ${session.outputNames.join(', ')})` +
          (output === 'mean_hidden_states' ? `; export it with all-layer means or use --layers last` : ''),
      );
    return new Encoder(model, tokenizer, session, usesDynamicQuantization(model.onnxFile) ? 1 : (opts.batchSize ?? 16), output);
  }

  /**
   * Tokens of the prompt that pooling leaves out when include_prompt is false, as sentence-transformers counts
   * them: the prompt tokenised alone with its special tokens, less a trailing special token (6.x
   * base/modules/transformer.py `_get_prompt_length`).
   */
  private promptLength(prompt: string): number {
    const ids = encodeTruncated(this.tokenizer, prompt, this.model.maxLength);
    return ids.length - (ids.length > 0 && this.tokenizer.specialIds.has(ids[ids.length - 1]) ? 1 : 0);
  }

  /** The text a role encodes: its prompt, then `title + sep_token + abstract` (SciRepEval's and SPECTER2's input). */
  text(a: ArticleText, role: Role = 'document'): string {
    return this.roles[role].prompt + a.title + this.tokenizer.sepToken + a.abstract;
  }

  /** Token ids exactly as the model sees them: the role's text with its special tokens, truncated to maxLength. */
  tokenize(a: ArticleText, role: Role = 'document'): TokenizedArticle {
    const m = this.model;
    if (m.pooling !== 'aspire') return { ids: encodeTruncated(this.tokenizer, this.text(a, role), m.maxLength) };
    // ASPIRE: title + " [SEP] " is the first segment (context only), then each abstract sentence; the token
    // budget cuts the last sentence that does not fit and drops the rest.
    const budget = Math.min(ASPIRE_MAX_TOKENS, m.maxLength - 2);
    const segments = [`${a.title} ${this.tokenizer.sepToken} `, ...splitSentences(a.abstract)];
    const body: number[] = [];
    const spans: number[] = [];
    const sep = this.tokenizer.suffix[0];
    for (let s = 0; s < segments.length && body.length < budget; s++) {
      const toks = this.tokenizer.body(segments[s]);
      const take = Math.min(toks.length, budget - body.length);
      if (take === 0) continue;
      if (s > 0) spans.push(body.length + 1, body.length + 1 + take); // +1: [CLS] comes first
      for (let i = 0; i < take; i++) body.push(toks[i]);
    }
    if (spans.length === 0) {
      // No abstract sentence (empty abstract): the title tokens, without its [SEP], stand in as one sentence.
      let end = body.length;
      while (end > 0 && body[end - 1] === sep) end--;
      spans.push(1, end + 1); // empty span when there is no title either: a zero vector
    }
    const ids = new Int32Array(body.length + 2);
    ids[0] = this.tokenizer.prefix[0];
    for (let i = 0; i < body.length; i++) ids[i + 1] = body[i];
    ids[body.length + 1] = sep;
    return { ids, spans: Int32Array.from(spans) };
  }

  /** Encode articles (any number) in a role (default: document, as the pool); vectors come back in input order. */
  async encode(articles: ArticleText[], onBatch?: (articles: number) => void, role: Role = 'document'): Promise<EncodedBatch> {
    return this.encodeTokenized(articles.map((a) => this.tokenize(a, role)), onBatch, role);
  }

  /**
   * The encoder of one role, as an embedding store fills itself (store.ts): its fingerprint is the role's store
   * key, so a query vector can never enter a document store.
   */
  forRole(role: Role): ArticleEncoder {
    return {
      fingerprint: this.model.roleFingerprint[role],
      label: `encode ${this.model.name}${this.model.roleFingerprint.query === this.model.roleFingerprint.document ? '' : ` (${role})`}`,
      encode: (articles, onBatch) => this.encode(articles, onBatch, role),
    };
  }

  /** `onBatch(n)` is called after each forward pass with the number of articles it encoded (for progress). */
  async encodeTokenized(toks: TokenizedArticle[], onBatch?: (articles: number) => void, role: Role = 'document'): Promise<EncodedBatch> {
    const n = toks.length;
    const dim = this.dim;
    const hidden = this.model.hiddenSize;
    const masked = this.roles[role].masked;
    const counts = new Uint32Array(n);
    for (let i = 0; i < n; i++) counts[i] = toks[i].spans ? toks[i].spans!.length / 2 : 1;
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + counts[i];
    const vectors = new Float32Array(offsets[n] * dim);
    // Longest first, ties by input position: deterministic, and similar lengths share a batch.
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => toks[b].ids.length - toks[a].ids.length || a - b);
    // The tokenizer's padding side (Qwen3-Embedding pads on the left): a text's tokens sit at the end of its row then.
    const left = this.tokenizer.paddingSide === 'left';
    for (let b = 0; b < n; b += this.batchSize) {
      const batch = order.slice(b, b + this.batchSize);
      const len = toks[batch[0]].ids.length;
      const ids = new BigInt64Array(batch.length * len);
      const mask = new BigInt64Array(batch.length * len);
      // int64 inputs written through 32-bit views of the same bytes (low word, little-endian; ids are < 2³¹): no
      // BigInt per token. Padding ids are the pad token's in transformers; the mask keeps them out of every real
      // token's state.
      const ids32 = new Int32Array(ids.buffer);
      const mask32 = new Int32Array(mask.buffer);
      batch.forEach((a, r) => {
        const t = toks[a].ids;
        const from = 2 * (r * len + (left ? len - t.length : 0));
        for (let j = 0; j < t.length; j++) {
          ids32[from + 2 * j] = t[j];
          mask32[from + 2 * j] = 1;
        }
      });
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', ids, [batch.length, len]),
        attention_mask: new ort.Tensor('int64', mask, [batch.length, len]),
      };
      if (this.session.inputNames.includes('token_type_ids'))
        feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(batch.length * len), [batch.length, len]);
      const out = await this.session.run(feeds, [this.output]);
      const states = tensorFloats(out[this.output]);
      const hdim = out[this.output].dims[2];
      if (hdim !== hidden) throw new CitebenchError(`${this.model.onnxFile}: hidden size ${hdim}, config.json says ${hidden}`);
      batch.forEach((a, r) => {
        const t = toks[a];
        const base = (r * len + (left ? len - t.ids.length : 0)) * hidden;
        const dst = offsets[a] * dim;
        if (this.pooling) {
          poolSequence(states, base, t.ids.length, hidden, this.pooling, masked, vectors, dst);
        } else {
          const sp = t.spans!;
          for (let s = 0; s < sp.length / 2; s++) meanRows(states, base, sp[2 * s], sp[2 * s + 1], hidden, vectors, dst + s * dim);
        }
      });
      onBatch?.(batch.length);
    }
    return { dim, offsets, vectors };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * A float output as float32: a float16 export (model_fp16.onnx) returns its hidden states in float16, which
 * onnxruntime-node hands over as raw binary16 (Uint16Array; Node 20 has no Float16Array). Pooling then runs in
 * float32/float64 as for any model.
 */
export function tensorFloats(t: ort.Tensor): Float32Array {
  if (t.type === 'float32') return t.data as Float32Array;
  if (t.type === 'float16') {
    const d = t.data as unknown as ArrayBufferView;
    return decodeHalf(new Uint16Array(d.buffer, d.byteOffset, d.byteLength / 2));
  }
  throw new CitebenchError(`ONNX output is ${t.type}, expected float32 or float16`);
}

/** out[dst..dst+dim) = mean of token rows [from, to) of one sequence (float64 sums, then float32). */
function meanRows(h: Float32Array, base: number, from: number, to: number, dim: number, out: Float32Array, dst: number): void {
  const n = to - from;
  if (n <= 0) return; // stays zero
  const acc = new Float64Array(dim);
  for (let t = from; t < to; t++) {
    const o = base + t * dim;
    for (let j = 0; j < dim; j++) acc[j] += h[o + j];
  }
  for (let j = 0; j < dim; j++) out[dst + j] = acc[j] / n;
}
