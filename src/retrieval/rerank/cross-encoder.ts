/**
 * A cross-encoder as a PairScorer: an ONNX sequence-classification graph — built by citebench from the folder's
 * checkpoint (encoder-graph/ with its classification head) or an ONNX export with a `logits` output — over
 * (query, candidate) pairs tokenised with the tokenizer's pair template and longest-first truncation
 * (tokenizer.ts encodePair). The score is what sentence-transformers' CrossEncoder.predict returns: the
 * activation of the float32 logit, applied in double (one label); with two labels, P(label 1) — the softmax of
 * the activated logits, column 1 (predict(apply_softmax=True)[:, 1]; docs/rerank.md).
 */
import * as ort from 'onnxruntime-node';
import { CitebenchError } from '../../util/errors.ts';
import { createSession, tensorFloats, usesDynamicQuantization, type Device } from '../dense/encoder.ts';
import { encodePair, type PairTokenizer } from '../dense/tokenizer.ts';
import type { PairScorer } from './pair-scorer.ts';

/** The activations a CrossEncoder folder names (config_sentence_transformers.json `activation_fn`), by class name. */
export const ACTIVATIONS: Record<string, (x: number) => number> = {
  Sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  Identity: (x) => x,
  Tanh: Math.tanh,
  ReLU: (x) => Math.max(0, x),
  LogSigmoid: (x) => -Math.log1p(Math.exp(-x)),
  Softsign: (x) => x / (1 + Math.abs(x)),
};
export type ActivationName = keyof typeof ACTIVATIONS;

export interface CrossEncoderSpec {
  name: string;
  fingerprint: string;
  describe: string;
  onnxFile: string;
  tokenizer: PairTokenizer;
  maxLength: number;
  /** Used for the padding of a batch (masked out; RoBERTa's positions skip it). */
  padId: number;
  numLabels: 1 | 2;
  activation: ActivationName;
}

export interface CrossEncoderRunOptions {
  /** Pairs per forward pass (default 16). */
  batchSize?: number;
  threads?: number;
  device?: Device;
  log?: (line: string) => void;
}

export class CrossEncoderScorer implements PairScorer {
  readonly name: string;
  readonly fingerprint: string;
  readonly describe: string;

  private constructor(
    private readonly spec: CrossEncoderSpec,
    private readonly session: ort.InferenceSession,
    private readonly opts: CrossEncoderRunOptions,
    /** The graph quantises activations at run time (usesDynamicQuantization): one pair per forward pass. */
    private readonly dynamicQuantization: boolean,
  ) {
    this.name = spec.name;
    this.fingerprint = spec.fingerprint;
    this.describe = spec.describe;
  }

  static async load(spec: CrossEncoderSpec, opts: CrossEncoderRunOptions = {}): Promise<CrossEncoderScorer> {
    const session = await createSession(spec.onnxFile, opts);
    const refuse = async (why: string): Promise<never> => {
      await session.release();
      throw new CitebenchError(`${spec.onnxFile}: ${why}`);
    };
    if (!session.outputNames.includes('logits'))
      await refuse(`not a sequence-classification model (no ONNX output 'logits'; has ${session.outputNames.join(', ')}): export it with optimum's --task text-classification, or give the checkpoint`);
    for (const name of ['input_ids', 'attention_mask']) if (!session.inputNames.includes(name)) await refuse(`ONNX input '${name}' missing (has ${session.inputNames.join(', ')})`);
    return new CrossEncoderScorer(spec, session, opts, usesDynamicQuantization(spec.onnxFile));
  }

  /** Ids and token types of one pair, exactly as the model sees them. */
  pairTokens(query: string, candidate: string): { ids: Int32Array; types: Int32Array } {
    return encodePair(this.spec.tokenizer, query, candidate, this.spec.maxLength);
  }

  /** The float32 logits of the pairs, [pairs × numLabels], in input order. */
  async logits(pairs: readonly (readonly [string, string])[]): Promise<Float32Array> {
    const L = this.spec.numLabels;
    const out = new Float32Array(pairs.length * L);
    const toks = pairs.map(([q, c]) => this.pairTokens(q, c));
    // A graph that quantises activations at run time scores each pair alone: in a batch, a pair's score would
    // depend on its batch-mates (one scale per batch tensor), as an encoder's vector would (dense/encoder.ts).
    const bs = this.dynamicQuantization ? 1 : Math.max(1, this.opts.batchSize ?? 16);
    // Longest first, ties by position: similar lengths share a batch (padding is masked out).
    const order = Array.from(toks.keys()).sort((x, y) => toks[y].ids.length - toks[x].ids.length || x - y);
    for (let s = 0; s < order.length; s += bs) {
      const batch = order.slice(s, s + bs);
      const logits = await this.forward(batch.map((p) => toks[p]));
      batch.forEach((p, r) => out.set(logits.subarray(r * L, r * L + L), p * L));
    }
    return out;
  }

  /** One forward pass over tokenised pairs, padded to the longest: their logits [pairs × numLabels]. */
  async forward(batch: readonly { ids: Int32Array; types: Int32Array }[]): Promise<Float32Array> {
    const L = this.spec.numLabels;
    const len = Math.max(...batch.map((t) => t.ids.length));
    const ids = new BigInt64Array(batch.length * len).fill(BigInt(this.spec.padId));
    const mask = new BigInt64Array(batch.length * len);
    const types = new BigInt64Array(batch.length * len);
    batch.forEach((t, r) => {
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
    const got = res.logits.dims.at(-1) ?? 1;
    if (got !== L) throw new CitebenchError(`${this.spec.onnxFile}: 'logits' has ${got} labels, config.json says ${L}`);
    return tensorFloats(res.logits);
  }

  async scoreTexts(pairs: readonly (readonly [query: string, candidate: string])[]): Promise<Float64Array> {
    const logits = await this.logits(pairs);
    const act = ACTIVATIONS[this.spec.activation];
    const scores = new Float64Array(pairs.length);
    if (this.spec.numLabels === 1) for (let i = 0; i < pairs.length; i++) scores[i] = act(logits[i]);
    else
      for (let i = 0; i < pairs.length; i++) {
        // softmax([a0, a1])[1] = 1 / (1 + e^(a0 − a1)).
        scores[i] = 1 / (1 + Math.exp(act(logits[2 * i]) - act(logits[2 * i + 1])));
      }
    return scores;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
