/**
 * Goyal et al. 2026 §3.2: public profiles from citing articles, over a BM25 model (sparse profiles, needing its
 * index and parameters) or a dense one (its embedding store) configured above. `tune` chooses β on the
 * dataset-level validation split, as BM25 tunes k1/b: disjoint from the test queries, in the config's first setting.
 */
import { termIndexOf, vectorsOf } from '../../retrieval/capabilities.ts';
import { DenseProfiler } from '../../retrieval/profiler/dense.ts';
import { SparseProfiler } from '../../retrieval/profiler/sparse.ts';
import type { Retriever } from '../../retrieval/retriever.ts';
import { CitebenchError } from '../../util/errors.ts';
import { posInt, readTune, type Reader, type TunableParam } from '../config-reader.ts';
import type { BuildContext, CostEnv, KindEntry } from './types.ts';
import { UNIT, denseSeconds } from './cost.ts';
import { need, orSkip, readRef } from './composed.ts';

export interface ProfilerModelConfig {
  kind: 'profiler';
  name: string;
  base: string;
  beta: number;
  /** Sparse profiles: keep the citing part of the top N terms only (absent: all; see profiler/sparse.ts). */
  topTerms?: number;
  /** Choose β on the dataset-level validation split (like BM25's k1/b); the chosen value replaces beta. */
  tune?: { beta: number[]; measure: string };
}

/** The Profiler's tunable parameter and its default grid. */
const PROFILER_PARAMS: Record<'beta', TunableParam> = { beta: { grid: [0, 0.2, 0.4, 0.6, 0.8, 1], check: (n) => n >= 0, what: 'a number ≥ 0' } };

/** Costs of sparse profiles (docs/benchmarks.md, "Beyond the paper"; bench/beyond/cost.ts at 40 k … 2 M pools). */
const COST = {
  /** Sparse profile postings per candidate: 1,610 with every citing term (200 k pool, synthetic: ~34 citing articles each). */
  profilePostings: 1610,
  /** …and with `topTerms` m: own terms + m, 178 at m = 100 (the own part fitted to that one measurement). */
  profileOwnTerms: 78,
  /**
   * Profile build per citing posting (128.7 s for 322 M at 200 k: the slowest rate measured); with topTerms the
   * quickselect build costs 0.35 of the all-terms estimate (451 s for a 2 M pool, 356.6 M postings kept).
   */
  profileBuildPerPosting: 4.0e-7,
  profileBuildTopTermsFactor: 0.35,
  /** Bytes per profile posting: forward + inverted arrays, RSS growth 5.1 GiB for 322 M at 200 k. */
  profileBytesPerPosting: 17,
  /** Profiler search per query and profile posting of the pool: 17.5 s for 200 queries over 322 M (200 k); with topTerms 100, 131.9 s over 356.6 M (2 M). */
  profileSearchPerPosting: { all: 2.7e-10, topTerms: 1.85e-9 },
  /** Citing articles per candidate (synthetic: 5.6 M citing edges for a 200 k pool): the dense Profiler's vector adds. */
  citingPerCandidate: 28,
};

const profilePostings = (m: { topTerms?: number }) => (m.topTerms ? Math.min(COST.profilePostings, COST.profileOwnTerms + m.topTerms) : COST.profilePostings);
const overDense = (c: ProfilerModelConfig, env: CostEnv) => env.dense(env.model(c.base));

export const profiler: KindEntry<ProfilerModelConfig> = {
  kind: 'profiler',
  beyondPaper: true,
  about: 'public profiles from citing articles over a bm25 or dense model configured above (Goyal et al. 2026 §3.2)',
  parse(r: Reader, p: string[], name: string, earlier: string[]): ProfilerModelConfig {
    r.checkKeys(p, ['kind', 'base', 'beta', 'tune', 'topTerms']);
    const base = readRef(r, p, 'base', name, earlier);
    const t = readTune(r, p, PROFILER_PARAMS);
    const tune = t && { beta: t.grid.beta, measure: t.measure };
    // Goyal et al.'s sweep chose β = 0.2 (with α = 0.8 on citation contexts, which S2ORC metadata lacks).
    const topTerms = r.has([...p, 'topTerms']) ? r.num([...p, 'topTerms'], undefined, posInt, 'a positive integer') : undefined;
    return { kind: 'profiler', name, base, beta: r.num([...p, 'beta'], 0.2, (n) => n >= 0, 'a number ≥ 0'), ...(topTerms ? { topTerms } : {}), ...(tune ? { tune } : {}) };
  },
  // A sparse Profiler reads its profiles from the corpus's BM25 index (over a bm25 base).
  needsCorpusIndex: (c, models) => (models.find((b) => b.name === c.base)?.kind === 'bm25' ? `the sparse Profiler '${c.name}' builds its profiles from the corpus's BM25 index` : undefined),
  tuning: (c) => c.tune && { grid: { beta: c.tune.beta }, measure: c.tune.measure },
  offTask: (_c, on) => `builds its profiles from citing articles, and ${on.what} has no citation graph`,
  describe: (c) => ` of ${c.base}`,
  build: (c, ctx, params) => ctx.timed(`model ${c.name}`, () => orSkip(c.name, () => build(c, ctx, params?.beta))),
  cost: {
    perQuery: (c, env, pool) => (overDense(c, env) ? denseSeconds(pool) : pool * profilePostings(c) * (c.topTerms ? COST.profileSearchPerPosting.topTerms : COST.profileSearchPerPosting.all)),
    perGroup(c, env, pool) {
      // Dense: one vector add per citing edge, and the pool's vectors plus their profiles in memory.
      if (overDense(c, env)) return { seconds: pool * COST.citingPerCandidate * UNIT.dim * UNIT.densePerQueryDocDim, bytes: 2 * pool * UNIT.dim * 4 };
      return {
        seconds: pool * COST.profilePostings * COST.profileBuildPerPosting * (c.topTerms ? COST.profileBuildTopTermsFactor : 1),
        bytes: pool * profilePostings(c) * COST.profileBytesPerPosting,
      };
    },
    modelBytes: (c, env) => env.modelBytes(env.model(c.base)), // the citation graph: counted with every model's cells (plan.ts)
    rescore: (c, env) => (overDense(c, env) ? denseSeconds(1) : UNIT.rescorePerCandidate),
    cellsNote: (_c, groups) => `, ${groups} profile builds`,
    stages(c, env, poolArticles) {
      if (!overDense(c, env)) return [];
      return [{ stage: `encode ${c.name}: citing articles outside the pools, up to ${env.articles - poolArticles}`, seconds: (env.articles - poolArticles) * UNIT.encodePerArticle, bytes: UNIT.bertBytes }];
    },
    assumption(c, env) {
      if (overDense(c, env)) {
        return 'Dense Profiler (not measured): one vector add per citing edge (~28 per candidate), the pool\'s vectors and profiles in memory; citing articles outside the pool must be encoded too, up to the whole corpus.';
      }
      return `Sparse profiles: one build per pool group and setting, ${profilePostings(c)} postings per candidate × ${COST.profileBytesPerPosting} bytes ` +
        `(${c.topTerms ? `topTerms ${c.topTerms}: own terms + ${c.topTerms}, fitted at topTerms 100` : 'every citing term: ~34 citing articles per candidate in the synthetic corpus'}), ` +
        (c.topTerms
          ? 'build and search rates per posting measured at a 2 M pool with topTerms 100 and assumed constant; '
          : 'build and search rates per posting measured at 200 k and assumed constant (the build rate grew with the pool, 0.11 µs at 40 k to 0.40 µs at 200 k: ' +
            'small pools are over-estimated, pools beyond 200 k may be under-estimated); ') +
        'an inductive profile has fewer citing articles, so its memory is an upper bound.';
    },
  },
};

async function build(m: ProfilerModelConfig, ctx: BuildContext, tunedBeta: number | undefined) {
  const base = need(ctx, m.base, `base: ${m.base}`);
  const terms = termIndexOf(base.retriever);
  const vectors = vectorsOf(base.retriever);
  const beta = tunedBeta ?? m.beta;
  let retriever: Retriever;
  if (terms) {
    retriever = new SparseProfiler(terms.index, ctx.store, ctx.store, { name: m.name, k1: terms.k1, b: terms.b, beta, topTerms: m.topTerms, tieKey: ctx.store.idOrder });
  } else if (vectors) {
    if (m.topTerms) throw new CitebenchError(`models.${m.name}.topTerms: only sparse (bm25-based) profiles have terms`);
    retriever = new DenseProfiler({ name: m.name, store: vectors.vectors, queryStore: vectors.queryVectors, beta, graph: ctx.store, encoder: vectors.encoder, texts: ctx.store, threads: ctx.threads, tieKey: ctx.store.idOrder });
  } else {
    throw new CitebenchError(`models.${m.name}.base: '${m.base}' is a ${base.kind} model; a Profiler is built on a model that ranks by a BM25 index (bm25) or an embedding store (dense)`);
  }
  const tuned = tunedBeta !== undefined;
  const kindText = terms ? `sparse (BM25 k1 ${terms.k1}, b ${terms.b})` : `dense (${m.base}, cosine)`;
  return {
    name: m.name, kind: 'profiler', weights: base.weights,
    settings: { base: m.base, beta, ...(m.topTerms ? { topTerms: m.topTerms } : {}), profile: terms ? 'sparse' : 'dense', ...(tuned ? { tuned: true } : {}) },
    summary: `Profiler ${kindText}, β ${beta}${tuned ? ' (tuned)' : ''}${m.topTerms ? `, top ${m.topTerms} citing terms` : ''}`,
    retriever, release: async () => {},
  };
}
