/**
 * Article encoder: the transformers.js tokenizer (WordPiece, identical to Hugging Face's) for input ids, and an
 * onnxruntime-node session called directly for the forward pass (no pipeline overhead, explicit threads).
 * Texts are sorted by token length inside each call so batches carry little padding; results come back in input
 * order. Batch composition does not change results beyond float rounding (attention masks exclude padding).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { AutoTokenizer, BertTokenizer, env } from '@huggingface/transformers';
import type { ArticleText } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import type { ResolvedModel } from './models.ts';
import { splitSentences } from './sentences.ts';
import { decodeHalf } from './float16.ts';
import { bertParityRewrite, bertTokenizerFromVocab, tokenizerFiles } from './wordpiece.ts';

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

interface Tokenizer {
  encode(text: string, opts?: { add_special_tokens?: boolean }): number[];
}

export interface EncoderOptions {
  /** Articles per forward pass (default 16). */
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

export class Encoder {
  readonly dim: number;
  private constructor(
    readonly model: ResolvedModel,
    private readonly tokenizer: Tokenizer,
    private readonly session: ort.InferenceSession,
    private readonly cls: number,
    private readonly sep: number,
    private readonly batchSize: number,
    private readonly output: string,
  ) {
    this.dim = model.hiddenSize;
  }

  static async load(model: ResolvedModel, opts: EncoderOptions = {}): Promise<Encoder> {
    const { tokenizer, cls, sep } = await loadTokenizer(model);
    const session = await createSession(model.onnxFile, opts);
    for (const name of ['input_ids', 'attention_mask'])
      if (!session.inputNames.includes(name)) throw new CitebenchError(`${model.onnxFile}: ONNX input '${name}' missing (has ${session.inputNames})`);
    const output = model.pooling === 'aspire' && model.layers === 'all' ? 'mean_hidden_states' : 'last_hidden_state';
    if (!session.outputNames.includes(output))
      throw new CitebenchError(
        `${model.onnxFile}: ONNX output '${output}' missing (has ${session.outputNames.join(', ')})` +
          (output === 'mean_hidden_states' ? `; export it with all-layer means or use --layers last` : ''),
      );
    return new Encoder(model, tokenizer, session, cls, sep, opts.batchSize ?? 16, output);
  }

  /** Token ids exactly as the model sees them: [CLS] title [SEP] abstract [SEP], truncated to maxLength. */
  tokenize(a: ArticleText): TokenizedArticle {
    const m = this.model;
    if (m.pooling !== 'aspire') {
      const body = this.tokenizer.encode(`${a.title} [SEP] ${a.abstract}`, { add_special_tokens: false });
      const n = Math.min(body.length, m.maxLength - 2);
      const ids = new Int32Array(n + 2);
      ids[0] = this.cls;
      for (let i = 0; i < n; i++) ids[i + 1] = body[i];
      ids[n + 1] = this.sep;
      return { ids };
    }
    // ASPIRE: title + " [SEP] " is the first segment (context only), then each abstract sentence; the token
    // budget cuts the last sentence that does not fit and drops the rest.
    const budget = Math.min(ASPIRE_MAX_TOKENS, m.maxLength - 2);
    const segments = [`${a.title} [SEP] `, ...splitSentences(a.abstract)];
    const body: number[] = [];
    const spans: number[] = [];
    for (let s = 0; s < segments.length && body.length < budget; s++) {
      const toks = this.tokenizer.encode(segments[s], { add_special_tokens: false });
      const take = Math.min(toks.length, budget - body.length);
      if (take === 0) continue;
      if (s > 0) spans.push(body.length + 1, body.length + 1 + take); // +1: [CLS] comes first
      for (let i = 0; i < take; i++) body.push(toks[i]);
    }
    if (spans.length === 0) {
      // No abstract sentence (empty abstract): the title tokens, without its [SEP], stand in as one sentence.
      let end = body.length;
      while (end > 0 && body[end - 1] === this.sep) end--;
      spans.push(1, end + 1); // empty span when there is no title either: a zero vector
    }
    const ids = new Int32Array(body.length + 2);
    ids[0] = this.cls;
    for (let i = 0; i < body.length; i++) ids[i + 1] = body[i];
    ids[body.length + 1] = this.sep;
    return { ids, spans: Int32Array.from(spans) };
  }

  /** Encode articles (any number); vectors come back in input order. */
  async encode(articles: ArticleText[], onBatch?: (articles: number) => void): Promise<EncodedBatch> {
    return this.encodeTokenized(articles.map((a) => this.tokenize(a)), onBatch);
  }

  /** `onBatch(n)` is called after each forward pass with the number of articles it encoded (for progress). */
  async encodeTokenized(toks: TokenizedArticle[], onBatch?: (articles: number) => void): Promise<EncodedBatch> {
    const n = toks.length;
    const dim = this.dim;
    const counts = new Uint32Array(n);
    for (let i = 0; i < n; i++) counts[i] = toks[i].spans ? toks[i].spans!.length / 2 : 1;
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + counts[i];
    const vectors = new Float32Array(offsets[n] * dim);
    // Longest first, ties by input position: deterministic, and similar lengths share a batch.
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => toks[b].ids.length - toks[a].ids.length || a - b);
    for (let b = 0; b < n; b += this.batchSize) {
      const batch = order.slice(b, b + this.batchSize);
      const len = toks[batch[0]].ids.length;
      const ids = new BigInt64Array(batch.length * len);
      const mask = new BigInt64Array(batch.length * len);
      batch.forEach((a, r) => {
        const t = toks[a].ids;
        for (let j = 0; j < t.length; j++) {
          ids[r * len + j] = BigInt(t[j]);
          mask[r * len + j] = 1n;
        }
      });
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', ids, [batch.length, len]),
        attention_mask: new ort.Tensor('int64', mask, [batch.length, len]),
      };
      if (this.session.inputNames.includes('token_type_ids'))
        feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(batch.length * len), [batch.length, len]);
      const out = await this.session.run(feeds, [this.output]);
      const hidden = tensorFloats(out[this.output]);
      const hdim = out[this.output].dims[2];
      if (hdim !== dim) throw new CitebenchError(`${this.model.onnxFile}: hidden size ${hdim}, config.json says ${dim}`);
      batch.forEach((a, r) => {
        const base = r * len * dim;
        const dst = offsets[a] * dim;
        const t = toks[a];
        if (this.model.pooling === 'cls') {
          vectors.set(hidden.subarray(base, base + dim), dst);
        } else if (this.model.pooling === 'mean') {
          meanRows(hidden, base, 0, t.ids.length, dim, vectors, dst);
        } else {
          const sp = t.spans!;
          for (let s = 0; s < sp.length / 2; s++) meanRows(hidden, base, sp[2 * s], sp[2 * s + 1], dim, vectors, dst + s * dim);
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

/**
 * A model folder's WordPiece tokenizer, from local files only; it must add [CLS] … [SEP]. A folder without
 * tokenizer.json but with vocab.txt gets the tokenizer Python transformers' BertTokenizerFast builds from it
 * (wordpiece.ts), in memory: nothing is written into the model folder, which may be read-only or shared.
 */
export async function loadTokenizer(model: Pick<ResolvedModel, 'dir'>): Promise<{ tokenizer: Tokenizer; cls: number; sep: number }> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  let tokenizer: Tokenizer;
  let normalizer: unknown;
  if (tokenizerFiles(model.dir)?.kind === 'vocab.txt') {
    const { json, config } = bertTokenizerFromVocab(model.dir);
    tokenizer = new BertTokenizer(json, config) as unknown as Tokenizer;
    normalizer = json.normalizer;
  } else {
    try {
      // The absolute folder path, not localModelPath + base name: transformers.js reads a name that is not a
      // valid hub id (e.g. 'org--name', as --allow-remote names folders) relative to the working directory.
      tokenizer = (await AutoTokenizer.from_pretrained(resolve(model.dir))) as unknown as Tokenizer;
    } catch (e) {
      throw new CitebenchError(`${model.dir}: cannot load the tokenizer (${(e as Error).message})`);
    }
    // transformers.js keeps the parsed tokenizer.json on the tokenizer.
    normalizer = (tokenizer as { _tokenizerJSON?: { normalizer?: unknown } })._tokenizerJSON?.normalizer;
  }
  // Where transformers.js's BertNormalizer differs from Python's, the text is rewritten first (wordpiece.ts).
  const rewrite = bertParityRewrite(normalizer);
  if (rewrite) {
    const inner = tokenizer;
    tokenizer = { encode: (text, opts) => inner.encode(rewrite(text), opts) };
  }
  const special = tokenizer.encode('', { add_special_tokens: true });
  if (special.length !== 2) throw new CitebenchError(`${model.dir}: tokenizer does not add [CLS] … [SEP] (got ${special})`);
  return { tokenizer, cls: special[0], sep: special[1] };
}
