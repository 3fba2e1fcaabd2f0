/**
 * Models built on other models of the same config (kinds navigation, profiler, rerank): each becomes a
 * Retriever wrapping the ready models it names, or a recorded skip when one of them (or its cross-encoder
 * folder) is not on this machine. A Profiler with `tune` chooses β on the dataset-level validation split, as BM25
 * tunes k1/b: disjoint from the test queries, in the config's first setting.
 */
import type { CorpusStore } from '../corpus/store.ts';
import { evalObjective } from '../retrieval/bm25/tune.ts';
import type { Bm25Index } from '../retrieval/bm25/index-format.ts';
import { CrossEncoderRetriever } from '../retrieval/dense/cross-encoder.ts';
import type { Device } from '../retrieval/dense/encoder.ts';
import { resolveModel } from '../retrieval/dense/models.ts';
import { NavigationRetriever } from '../retrieval/navigation.ts';
import { DenseProfiler } from '../retrieval/profiler/dense.ts';
import { SparseProfiler } from '../retrieval/profiler/sparse.ts';
import { RerankRetriever } from '../retrieval/rerank.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import type { WeightedScorer } from '../retrieval/scorer.ts';
import { citationQrels, samplePool } from '../sampling/pools.ts';
import { CitebenchError } from '../util/errors.ts';
import { settingsOf, type CrossEncoderRef, type ExperimentConfig, type NavigationModelConfig, type ProfilerModelConfig, type RerankModelConfig } from './config.ts';
import { weightsOf, type ReadyModel, type SkippedModel, type Weights } from './models.ts';
import type { QuerySplits } from './splits.ts';
import { cachedTuning } from './tuning-cache.ts';

export type ComposedModelConfig = NavigationModelConfig | ProfilerModelConfig | RerankModelConfig;

export interface ComposeContext {
  cfg: ExperimentConfig;
  store: CorpusStore;
  /** Models ready so far (those configured above). */
  ready: ReadyModel[];
  bm25Index?: Bm25Index;
  splits: QuerySplits;
  threads: number;
  /** cpu | cuda | auto for cross-encoders, as for the dense encoders. */
  device?: Device;
  log: (line: string) => void;
  /** The corpus and exclusion lists the splits are drawn from (run.ts): part of the β tuning cache key. */
  sampleKey?: string;
}

class Skip extends Error {}

export async function composedModel(m: ComposedModelConfig, ctx: ComposeContext): Promise<ReadyModel | SkippedModel> {
  try {
    if (m.kind === 'profiler') return await profiler(m, ctx);
    return await pipeline(m, ctx);
  } catch (e) {
    if (e instanceof Skip) return { name: m.name, reason: e.message };
    throw e;
  }
}

function need(ctx: ComposeContext, name: string, by: string): ReadyModel {
  const r = ctx.ready.find((x) => x.name === name);
  if (!r) throw new Skip(`it needs ${name}, which is skipped on this machine (${by})`);
  return r;
}

function combine(ws: Weights[]): Weights {
  return ws.includes('random') ? 'random' : ws.includes('imported') ? 'imported' : ws.every((w) => w === 'lexical') ? 'lexical' : 'trained';
}

async function loadCrossEncoder(ref: CrossEncoderRef, ctx: ComposeContext, name: string): Promise<{ retriever: CrossEncoderRetriever; weights: Weights; dir: string }> {
  let model;
  try {
    model = resolveModel(ref.model, { modelsDir: ref.modelsDir ?? ctx.cfg.modelsDir, quantized: ref.quantized, fp16: ref.fp16, overrides: ref.maxLength ? { maxLength: ref.maxLength } : {} });
  } catch (e) {
    if (e instanceof CitebenchError) throw new Skip(`cross-encoder folder not found: ${e.message.split('\n')[0]}`);
    throw e;
  }
  const retriever = await CrossEncoderRetriever.load(model, { name: `${name}-cross-encoder`, texts: ctx.store, threads: ctx.threads, device: ctx.device, log: ctx.log });
  return { retriever, weights: weightsOf(model), dir: model.dir };
}

async function pipeline(m: NavigationModelConfig | RerankModelConfig, ctx: ComposeContext): Promise<ReadyModel> {
  const first = need(ctx, m.first, `first: ${m.first}`);
  const ce = m.crossEncoder ? await loadCrossEncoder(m.crossEncoder, ctx, m.name) : undefined;
  const scorer: WeightedScorer[] = m.scorer.map((p) => ({ weight: p.weight, retriever: p.model === 'cross-encoder' ? ce!.retriever : need(ctx, p.model, `scorer: ${p.model}`).retriever }));
  const weights = combine([first.weights, ...m.scorer.map((p) => (p.model === 'cross-encoder' ? ce!.weights : need(ctx, p.model, '').weights))]);
  const scorerText = m.scorer.map((p) => `${p.weight === 1 ? '' : `${p.weight}·`}${p.model}`).join(' + ');
  const common = { tieKey: ctx.store.idOrder, name: m.name };
  const retriever: Retriever = m.kind === 'navigation'
    ? new NavigationRetriever({ ...common, first: first.retriever, scorer, kd: m.kd, kc: m.kc, graph: ctx.store })
    : new RerankRetriever({ ...common, first: first.retriever, scorer, depth: m.depth });
  const settings: Record<string, unknown> = m.kind === 'navigation'
    ? { first: m.first, kd: m.kd, kc: m.kc, T: m.kd.length, scorer: m.scorer, summary: `${m.first} + navigation, T ${m.kd.length}, k_d ${m.kd.join('/')}, k_c ${m.kc.join('/')}, ranked by ${scorerText}` }
    : { first: m.first, depth: m.depth, scorer: m.scorer, summary: `${m.first} top ${m.depth} re-ranked by ${scorerText}` };
  if (ce) settings.crossEncoder = ce.dir;
  return { name: m.name, kind: m.kind, weights, settings, retriever, release: async () => ce?.retriever.release() };
}

async function profiler(m: ProfilerModelConfig, ctx: ComposeContext): Promise<ReadyModel> {
  const base = need(ctx, m.base, `base: ${m.base}`);
  const make = (beta: number): Retriever => {
    if (base.kind === 'bm25') {
      return new SparseProfiler(ctx.bm25Index!, ctx.store, ctx.store, { name: m.name, k1: base.settings.k1 as number, b: base.settings.b as number, beta, topTerms: m.topTerms, tieKey: ctx.store.idOrder });
    }
    if (base.kind === 'dense' && base.embeddings) {
      if (m.topTerms) throw new CitebenchError(`models.${m.name}.topTerms: only sparse (bm25-based) profiles have terms`);
      return new DenseProfiler({ name: m.name, store: base.embeddings, beta, graph: ctx.store, encoder: base.encoder, texts: ctx.store, threads: ctx.threads, tieKey: ctx.store.idOrder });
    }
    throw new CitebenchError(`models.${m.name}.base: '${m.base}' is a ${base.kind} model; a Profiler is built on a bm25 or dense model`);
  };
  let beta = m.beta;
  let tuned: Record<string, unknown> | undefined;
  if (m.tune) {
    // Cached like BM25's tuning: the key holds every grid point's retriever fingerprint (base model and β).
    const key = { kind: 'profiler', sampleKey: ctx.sampleKey ?? null, tune: m.tune, grid: m.tune.beta.map((b) => make(b).fingerprint), seed: ctx.cfg.seed, k: ctx.cfg.k, year: ctx.cfg.queryYear, validation: ctx.cfg.validation, dataset: ctx.cfg.protocols.dataset ?? null, setting: settingsOf(ctx.cfg)[0] };
    const t = await cachedTuning(ctx.cfg.work, m.name, key, () => tuneBeta(m, make, ctx), (t, path) => ctx.log(`[tune] ${m.name}: β=${t.chosen} (tuned before: ${path})`));
    beta = t.chosen;
    tuned = t.record;
  }
  const kindText = base.kind === 'bm25' ? `sparse (BM25 k1 ${base.settings.k1}, b ${base.settings.b})` : `dense (${m.base}, cosine)`;
  return {
    name: m.name, kind: 'profiler', weights: base.weights,
    settings: { base: m.base, beta, ...(m.topTerms ? { topTerms: m.topTerms } : {}), profile: base.kind === 'bm25' ? 'sparse' : 'dense', ...(tuned ? { tuned } : {}), summary: `Profiler ${kindText}, β ${beta}${tuned ? ' (tuned)' : ''}${m.topTerms ? `, top ${m.topTerms} citing terms` : ''}` },
    retriever: make(beta), release: async () => {},
  };
}

async function tuneBeta(m: ProfilerModelConfig, make: (beta: number) => Retriever, ctx: ComposeContext): Promise<{ chosen: number; record: Record<string, unknown> }> {
  const { cfg, store } = ctx;
  const d = cfg.protocols.dataset;
  if (!d) throw new CitebenchError(`models.${m.name}.tune: tuning uses the dataset-level validation split; add protocols.dataset or give beta`);
  const setting = settingsOf(cfg)[0];
  const inductive = setting === 'inductive';
  const queries = ctx.splits.get('dataset', 'val', null, setting);
  const pool = samplePool(store, queries, { size: d.pools[0], repeat: 1, seed: cfg.seed, queryYear: cfg.queryYear, split: 'val', inductive });
  const rel = citationQrels(store, queries, pool.members);
  const score = evalObjective({ offsets: rel.offsets, docs: rel.docs, labels: new Int32Array(rel.docs.length).fill(1) }, m.tune!.measure, store.idOrder);
  const grid: { beta: number; score: number }[] = [];
  for (const beta of m.tune!.beta) {
    const run = await make(beta).search({ queries, pool: pool.members, k: cfg.k, excludeSelf: true, setting });
    grid.push({ beta, score: score(run) });
  }
  // Best score; ties go to the smaller β (the less the profile departs from the text).
  const best = grid.reduce((a, b) => (b.score > a.score || (b.score === a.score && b.beta < a.beta) ? b : a));
  ctx.log(`[tune] ${m.name}: β=${best.beta} (${m.tune!.measure} ${best.score.toFixed(4)} on ${queries.length} validation queries, ${setting})`);
  return { chosen: best.beta, record: { measure: m.tune!.measure, setting, queries: queries.length, poolSize: pool.members.length, grid } };
}
