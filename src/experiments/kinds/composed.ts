/**
 * What the kinds built on other models (navigation, profiler, rerank) share: reading references to models
 * configured above, scorers and cross-encoder folders; finding those models ready (a skipped one makes this one
 * a recorded skip); loading a cross-encoder; costing a scorer.
 */
import { loadReranker, rerankerFolder } from '../../retrieval/rerank/load.ts';
import { PairScorerRetriever } from '../../retrieval/rerank/pair-scorer.ts';
import type { WeightedScorer } from '../../retrieval/scorer.ts';
import { CitebenchError } from '../../util/errors.ts';
import { precision, type Reader } from '../config-reader.ts';
import { type ReadyModel, type SkippedModel, type Weights } from '../models.ts';
import type { BuildContext, CostEnv } from './types.ts';
import { UNIT } from './cost.ts';
import { knownReranker, rerankPairSeconds } from '../../retrieval/dense/registry.ts';

/** One part of a scorer: a model configured above (or `cross-encoder`: the model's crossEncoder folder) and its weight. */
export interface ScorerPart {
  model: string;
  weight: number;
}

/**
 * A reranker (rerank/load.ts), any of its folder forms — a cross-encoder or an LLM reranker: registry name, hub id
 * ORG/NAME (as <modelsDir>/ORG--NAME) or folder.
 */
export interface CrossEncoderRef {
  model: string;
  modelsDir?: string;
  quantized: boolean;
  /** As for dense models: onnx/model_fp16.onnx where the folder has it. */
  fp16?: boolean;
  maxLength?: number;
  /** An LLM reranker's task instruction (default: causal-lm.ts DEFAULT_RERANK_INSTRUCTION). */
  instruction?: string;
  /** Pairs per forward pass. */
  batch?: number;
}

/** The name of a model configured above `name`, at key `key`. */
export function readRef(r: Reader, p: string[], key: string, name: string, earlier: string[]): string {
  const v = r.str([...p, key]);
  if (v === undefined) r.fail([...p, key], `is required: the name of a model configured above ${name}`);
  if (!earlier.includes(v)) r.fail([...p, key], `'${v}' is not a model configured above ${name} (have: ${earlier.join(', ') || 'none'})`);
  return v;
}

/** `reranker:` (its earlier name `crossEncoder:` is read the same way): a name or folder, or {model, …}. */
export function readCrossEncoder(r: Reader, p: string[]): CrossEncoderRef | undefined {
  if (r.has([...p, 'reranker']) && r.has([...p, 'crossEncoder'])) r.fail([...p, 'crossEncoder'], 'give reranker or crossEncoder (its earlier name), not both');
  const c = [...p, r.has([...p, 'crossEncoder']) ? 'crossEncoder' : 'reranker'];
  if (!r.has(c)) return undefined;
  if (typeof r.raw(c) === 'string') return { model: r.str(c)!, quantized: false };
  r.checkKeys(c, ['model', 'modelsDir', 'quantized', 'fp16', 'maxLength', 'instruction', 'batch']);
  const instruction = r.str([...c, 'instruction']);
  return {
    model: r.str([...c, 'model']) ?? r.fail([...c, 'model'], 'is required: a registry name, hub id or model folder'),
    modelsDir: r.str([...c, 'modelsDir']),
    quantized: r.bool([...c, 'quantized'], false),
    ...precision(r, c),
    maxLength: r.has([...c, 'maxLength']) ? r.num([...c, 'maxLength'], undefined, (n) => Number.isInteger(n) && n >= 8, 'an integer ≥ 8') : undefined,
    ...(instruction !== undefined ? { instruction } : {}),
    ...(r.has([...c, 'batch']) ? { batch: r.num([...c, 'batch'], undefined, (n) => Number.isInteger(n) && n >= 1, 'a positive integer') } : {}),
  };
}

/** scorer: a model name, or a mapping name → weight; `cross-encoder` names the crossEncoder folder. */
export function readScorer(r: Reader, p: string[], name: string, earlier: string[], dflt: string | undefined, ce: CrossEncoderRef | undefined): ScorerPart[] {
  const s = [...p, 'scorer'];
  const check = (m: string, at: (string | number)[]) => {
    if (m === 'cross-encoder' ? !ce : !earlier.includes(m)) r.fail(at, m === 'cross-encoder' ? `'cross-encoder' needs a reranker folder (reranker:)` : `'${m}' is not a model configured above ${name} (have: ${earlier.join(', ')})`);
    return m;
  };
  if (!r.has(s)) {
    if (dflt === undefined) r.fail(s, 'is required: a model configured above, `cross-encoder` with a crossEncoder folder, or {model: weight, …}');
    return [{ model: dflt, weight: 1 }];
  }
  if (typeof r.raw(s) === 'string') return [{ model: check(r.str(s)!, s), weight: 1 }];
  const parts = r.keys(s).map((m) => ({ model: check(m, [...s, m]), weight: r.num([...s, m], undefined, Number.isFinite, 'a weight (number)') }));
  if (parts.length === 0) r.fail(s, 'name at least one model');
  return parts;
}


/** A model this one is built on: ready, or this one is a skip. */
class Skip extends Error {}

export function need(ctx: Pick<BuildContext, 'ready' | 'notReady'>, name: string, by: string): ReadyModel {
  const r = ctx.ready.find((x) => x.name === name);
  if (!r) throw new Skip(`it needs ${name}, which is ${ctx.notReady?.(name) ?? 'skipped on this machine'} (${by})`);
  return r;
}

/** `build` with a Skip turned into a recorded skip. */
export async function orSkip(name: string, f: () => Promise<ReadyModel>): Promise<ReadyModel | SkippedModel> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof Skip) return { name, reason: e.message };
    throw e;
  }
}

export function combineWeights(ws: Weights[]): Weights {
  return ws.includes('random') ? 'random' : ws.includes('imported') ? 'imported' : ws.every((w) => w === 'lexical') ? 'lexical' : 'trained';
}

async function loadCrossEncoder(ref: CrossEncoderRef, ctx: BuildContext, name: string): Promise<{ retriever: PairScorerRetriever; weights: Weights; dir: string }> {
  const modelsDir = ref.modelsDir ?? ctx.cfg.modelsDir;
  let scorer;
  try {
    scorer = await loadReranker(ref.model, { modelsDir, quantized: ref.quantized, fp16: ref.fp16, maxLength: ref.maxLength, instruction: ref.instruction, batchSize: ref.batch, threads: ctx.threads, device: ctx.device, log: ctx.log });
  } catch (e) {
    // A folder that is not there is a recorded skip; a folder that is wrong is an error.
    if (e instanceof CitebenchError && /is not available locally|unknown model/.test(e.message)) throw new Skip(`reranker folder not found: ${e.message.split('\n')[0]}`);
    throw e;
  }
  const dir = rerankerFolder(ref.model, { modelsDir }).dir;
  return { retriever: new PairScorerRetriever(scorer, { name: `${name}-cross-encoder`, texts: ctx.store }), weights: /random/i.test(dir) ? 'random' : 'trained', dir };
}

/** A first stage re-scored by weighted scorers (navigation, rerank): the parts ready, their weights, their text. */
export async function scorers(c: { name: string; first: string; scorer: ScorerPart[]; crossEncoder?: CrossEncoderRef }, ctx: BuildContext) {
  const first = need(ctx, c.first, `first: ${c.first}`);
  const ce = c.crossEncoder ? await loadCrossEncoder(c.crossEncoder, ctx, c.name) : undefined;
  const parts: WeightedScorer[] = c.scorer.map((p) => ({ weight: p.weight, retriever: p.model === 'cross-encoder' ? ce!.retriever : need(ctx, p.model, `scorer: ${p.model}`).retriever }));
  const weights = combineWeights([first.weights, ...c.scorer.map((p) => (p.model === 'cross-encoder' ? ce!.weights : need(ctx, p.model, '').weights))]);
  const text = c.scorer.map((p) => `${p.weight === 1 ? '' : `${p.weight}·`}${p.model}`).join(' + ');
  return { first, ce, parts, weights, text };
}

/** A reranker pair's price: the registry entry's estimate, else one BERT-base forward (an article encoded). */
function pairSeconds(ce: CrossEncoderRef | undefined): { seconds: number; note: string } {
  const known = ce && knownReranker(ce.model);
  if (known) return { seconds: rerankPairSeconds(known, ce!.quantized), note: `${known.name}: ${known.computeParams} M compute parameters at Qwen3-0.6B's measured rate scaled (${ce!.quantized ? 'int8' : 'float32'}; estimated)` };
  return { seconds: UNIT.crossEncoderPerPair, note: 'one BERT-base forward on CPU (1/8.25 s, as one article encoded; not measured)' };
}

/** Seconds to re-score `candidates` with every part of a scorer. */
export function scorerSeconds(c: { scorer: ScorerPart[]; crossEncoder?: CrossEncoderRef }, candidates: number, env: CostEnv): number {
  return c.scorer.reduce((t, p) => t + (p.model === 'cross-encoder' ? candidates * pairSeconds(c.crossEncoder).seconds : candidates * env.rescore(env.model(p.model))), 0);
}

/** Memory of the scorers besides the first stage: a reranker, or another configured model. */
export function scorerBytes(c: { first: string; scorer: ScorerPart[]; crossEncoder?: CrossEncoderRef }, env: CostEnv): number {
  const known = c.crossEncoder && knownReranker(c.crossEncoder.model);
  const reranker = known ? UNIT.encodeFixedBytes + known.computeParams * 1.3e6 * (c.crossEncoder!.quantized ? 1 : 4) * UNIT.encodeWeightCopies : UNIT.bertBytes;
  return c.scorer.reduce((b, p) => b + (p.model === 'cross-encoder' ? reranker : p.model === c.first ? 0 : env.modelBytes(env.model(p.model))), 0);
}

export const crossEncoderNote = (c: { scorer: ScorerPart[]; crossEncoder?: CrossEncoderRef }): string => (c.scorer.some((p) => p.model === 'cross-encoder')
  ? ` A reranker pair costs ${pairSeconds(c.crossEncoder).note}.` : '');
