/**
 * A cross-encoder as a Retriever over fixed candidate lists: an ONNX sequence-classification model in Hugging
 * Face layout (the encoders' folder rules: config.json, tokenizer.json, onnx/model*.onnx) that reads
 * `[CLS] query [SEP] candidate [SEP]` (token types 0 then 1) and outputs `logits`; the relevance score is the
 * last logit (one label: its logit; two labels: the "relevant" one). Query and candidate are each title +
 * abstract; when the pair is too long, tokens are removed from the longer side until it fits (Nogueira et al.
 * 2020 §3). It only re-scores (`candidates`); ranking a whole pool with it would cost a forward pass per article.
 */
import { basename } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { TextSource } from '../../corpus/article.ts';
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import { CitebenchError } from '../../util/errors.ts';
import { fileContentHash, type ResolvedModel } from './models.ts';
import { createSession, tensorFloats, type Device } from './encoder.ts';
import { loadTokenizer } from './tokenizer.ts';

interface Tokenizer {
  encode(text: string, opts?: { add_special_tokens?: boolean }): number[];
}

export interface CrossEncoderOptions {
  name: string;
  texts: TextSource;
  threads?: number;
  /** Pairs per forward pass (default 16). */
  batchSize?: number;
  /** cpu (default) | cuda | auto, as for the encoders. */
  device?: Device;
  log?: (line: string) => void;
}

export class CrossEncoderRetriever implements Retriever {
  readonly name: string;
  private fingerprint_: string | undefined;

  private constructor(
    readonly model: ResolvedModel,
    private readonly tokenizer: Tokenizer,
    private readonly session: ort.InferenceSession,
    private readonly special: { cls: number; sep: number },
    private readonly opts: CrossEncoderOptions,
  ) {
    this.name = opts.name;
  }

  static async load(model: ResolvedModel, opts: CrossEncoderOptions): Promise<CrossEncoderRetriever> {
    const loaded = await loadTokenizer(model);
    const tokenizer = loaded.tokenizer as unknown as Tokenizer;
    const session = await createSession(model.onnxFile, opts);
    if (!session.outputNames.includes('logits')) {
      await session.release();
      throw new CitebenchError(`${model.onnxFile}: not a sequence-classification model (no ONNX output 'logits'; has ${session.outputNames.join(', ')}): export it with optimum's --task text-classification`);
    }
    for (const name of ['input_ids', 'attention_mask'])
      if (!session.inputNames.includes(name)) throw new CitebenchError(`${model.onnxFile}: ONNX input '${name}' missing (has ${session.inputNames})`);
    return new CrossEncoderRetriever(model, tokenizer, session, { cls: loaded.cls, sep: loaded.sep }, opts);
  }

  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'cross-encoder', version: 1, onnx: basename(this.model.onnxFile), onnxSha256: fileContentHash(this.model.onnxFile),
      fingerprint: this.model.fingerprint, maxLength: this.model.maxLength, pair: 'title abstract [SEP] title abstract, longest-first truncation',
    });
    return this.fingerprint_;
  }

  /** Token ids and types of one pair, exactly as the model sees them. */
  pairTokens(query: number, candidate: number): { ids: Int32Array; types: Int32Array } {
    const enc = (i: number) => {
      const t = this.opts.texts.text(i);
      return this.tokenizer.encode(`${t.title} ${t.abstract}`, { add_special_tokens: false });
    };
    const a = enc(query);
    const b = enc(candidate);
    const budget = this.model.maxLength - 3;
    while (a.length + b.length > budget) (a.length >= b.length ? a : b).pop();
    const ids = Int32Array.from([this.special.cls, ...a, this.special.sep, ...b, this.special.sep]);
    const types = new Int32Array(ids.length);
    types.fill(1, a.length + 2);
    return { ids, types };
  }

  /** Relevance logits of (query, candidate) pairs, in input order. */
  async scorePairs(pairs: [number, number][]): Promise<Float32Array> {
    const out = new Float32Array(pairs.length);
    const toks = pairs.map(([q, c]) => this.pairTokens(q, c));
    const bs = this.opts.batchSize ?? 16;
    // Longest first, ties by position: similar lengths share a batch (padding is masked out).
    const order = Array.from(toks.keys()).sort((x, y) => toks[y].ids.length - toks[x].ids.length || x - y);
    for (let s = 0; s < order.length; s += bs) {
      const batch = order.slice(s, s + bs);
      const len = toks[batch[0]].ids.length;
      const ids = new BigInt64Array(batch.length * len);
      const mask = new BigInt64Array(batch.length * len);
      const types = new BigInt64Array(batch.length * len);
      batch.forEach((p, r) => {
        const t = toks[p];
        for (let j = 0; j < t.ids.length; j++) {
          ids[r * len + j] = BigInt(t.ids[j]);
          mask[r * len + j] = 1n;
          types[r * len + j] = BigInt(t.types[j]);
        }
      });
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', ids, [batch.length, len]),
        attention_mask: new ort.Tensor('int64', mask, [batch.length, len]),
      };
      if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', types, [batch.length, len]);
      const res = await this.session.run(feeds, ['logits']);
      const logits = tensorFloats(res.logits);
      const labels = res.logits.dims[1] ?? 1;
      batch.forEach((p, r) => (out[p] = logits[r * labels + labels - 1]));
    }
    return out;
  }

  readonly scoresCandidates = true;

  async search(req: SearchRequest): Promise<RankedLists> {
    if (!req.candidates) throw new CitebenchError(`${this.name}: a cross-encoder re-scores candidate lists (use it as the scorer of a rerank or navigation model)`);
    const excludeSelf = req.excludeSelf ?? true;
    const lists = req.candidates.map((c, q) => (excludeSelf ? c.filter((x) => x !== req.queries[q]) : c));
    const pairs: [number, number][] = [];
    lists.forEach((c, q) => c.forEach((x) => pairs.push([req.queries[q], x])));
    const s = await this.scorePairs(pairs);
    const offsets = new Uint32Array(lists.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    let p = 0;
    lists.forEach((c, q) => {
      const idx = Array.from(c.keys()).sort((x, y) => s[p + y] - s[p + x] || c[y] - c[x]).slice(0, req.k);
      for (const i of idx) {
        docs.push(c[i]);
        scores.push(s[p + i]);
      }
      p += c.length;
      offsets[q + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
