/**
 * Fabricates a results folder in the format of `citebench run` (src/report/results.ts) with FAKE values, only
 * to time and test `citebench report` at any size — by default the paper's: 3,800 queries × 4 pools (200k–2M)
 * × 3 repeats × 6 models at the dataset level, 19 fields × 200 queries × 3 repeats at the field level, MDCR
 * results per field and candidate type, a BM25 tuning grid. The corpus is marked synthetic and every model
 * random-weight, so the report's banner says the numbers mean nothing.
 *
 * Written: results.json (with the significance record `citebench run` computes, from the fabricated per-query
 * values), timings.json, config.json, cells/ (per-query values), and for the field level's first
 * repeat the TREC run and qrels files the drill-down reads. Dataset-level run files are not written (the report
 * never reads them; at this size they would be ~5 GB).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIELDS, fieldAbbrev } from '../../src/corpus/fields.ts';
import type { CellRecord, CellSummary, MdcrRecord, MdcrSummary, ResultsIndex } from '../../src/report/results.ts';
import { Rng } from '../../src/util/rng.ts';
import { significanceStage } from '../../src/experiments/significance-stage.ts';

export interface FabricateOptions {
  queries: number;
  pools: number[];
  /** Pool size ÷ scale = the paper's pool (200k … 2M) when the report should print the paper's values. */
  scale: number;
  repeats: number;
  models: string[];
  fields: string[];
  fieldQueries: number;
  fieldPool: number;
  k: number;
  /** Relevant (cited) articles per query. */
  cited: number;
  seed: number;
  /** The fields' scheme (default MAG's): 'topics' fabricates a run on an OpenAlex Topics store (fields from TOPIC_FIELDS). */
  fieldScheme?: 'mag' | 'topics';
}

export const PAPER_SIZE: FabricateOptions = {
  queries: 3800, pools: [200_000, 500_000, 1_000_000, 2_000_000], scale: 1, repeats: 3,
  models: ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', 'aspire-cs'], fields: [...FIELDS],
  fieldQueries: 200, fieldPool: 100_000, k: 500, cited: 20, seed: 1,
};

const MEASURES = ['MAP', 'nDCG', 'R@30'];
// Fake model strengths (a model's mean lies near this; pools shrink it): only to make the charts non-flat.
const STRENGTH: Record<string, number> = { bm25: 0.4, scibert: 0.06, specter: 0.37, scincl: 0.42, 'aspire-bm': 0.41, 'aspire-cs': 0.4 };

export function fabricateResults(dir: string, o: FabricateOptions): ResultsIndex {
  const rng = new Rng(o.seed);
  const cells: CellSummary[] = [];
  const qid = (i: number) => String(100_000_000 + i);
  const docId = (i: number) => String(500_000_000 + i);
  const write = (p: string, s: string) => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), s);
  };

  const cell = (model: string, protocol: 'dataset' | 'field', field: string | null, poolSize: number, repeat: number, queryIds: string[], group: string) => {
    const s = (STRENGTH[model] ?? 0.3) * (1 - 0.08 * Math.log10(poolSize / Math.min(...o.pools, o.fieldPool)));
    const perQuery: Record<string, number[]> = {};
    const means: Record<string, number> = {};
    MEASURES.forEach((m, j) => {
      const off = [0, 0.33, 0.03][j];
      const v = queryIds.map(() => Math.min(1, Math.max(0, s + off + 0.25 * (rng.next() - 0.5))));
      perQuery[m] = v;
      means[m] = v.reduce((a, b) => a + b, 0) / v.length;
    });
    const rec: CellRecord = {
      key: `fake-${model}-${group}`, model, protocol, split: 'test', field: field as CellRecord['field'], poolSize, poolMembers: poolSize, repeat,
      queries: queryIds.length, emptyLists: 0, means, perQuery, queryIds, files: { run: `runs/${model}/${group}.trec`, qrels: `qrels/${group}.qrels` },
    };
    const file = `cells/${model}/${group}.json`;
    write(file, JSON.stringify(rec));
    const { perQuery: _p, queryIds: _q, ...summary } = rec;
    cells.push({ ...summary, file });
  };

  const dsQueries = Array.from({ length: o.queries }, (_, i) => qid(i));
  for (const pool of o.pools) for (let r = 1; r <= o.repeats; r++) for (const m of o.models) cell(m, 'dataset', null, pool, r, dsQueries, `dataset/${pool}-r${r}`);

  const fieldRepeats: Record<string, number> = {};
  o.fields.forEach((f, fi) => {
    const ab = fieldAbbrev(f);
    fieldRepeats[ab] = o.repeats;
    const qs = Array.from({ length: o.fieldQueries }, (_, i) => qid(10_000_000 + fi * 100_000 + i));
    for (let r = 1; r <= o.repeats; r++) {
      const group = `field/${ab}/r${r}`;
      for (const m of o.models) cell(m, 'field', f, o.fieldPool, r, qs, group);
      if (r !== 1) continue;
      // The drill-down reads the first repeat's runs and qrels.
      const qrels: string[] = [];
      // Distinct docs per query: trec_eval (and citebench's readers) reject a doc judged or retrieved twice.
      for (const q of qs) for (const d of rng.sampleIndices(o.fieldPool, o.cited)) qrels.push(`${q} 0 ${docId(d)} 1`);
      write(`qrels/${group}.qrels`, qrels.join('\n') + '\n');
      for (const m of o.models) {
        const lines: string[] = [];
        for (const q of qs) rng.sampleIndices(o.fieldPool, o.k).forEach((d, i) => lines.push(`${q} Q0 ${docId(d)} ${i + 1} ${(100 - (i + 1) / 10).toFixed(5)} ${m}`));
        write(`runs/${m}/${group}.trec`, lines.join('\n') + '\n');
      }
    }
  });

  const summary = (): MdcrSummary => {
    const fields = o.fields.map((f) => ({ field: f as MdcrSummary['fields'][number]['field'], queries: o.fieldQueries, values: { map: 100 * rng.next(), ndcg: 100 * rng.next(), recall_5: 100 * rng.next() } }));
    const avg = { map: 0, ndcg: 0, recall_5: 0 };
    for (const k of ['map', 'ndcg', 'recall_5'] as const) avg[k] = fields.reduce((s, f) => s + f.values[k], 0) / fields.length;
    return { avg, fields } as MdcrSummary;
  };
  const types = ['bm25', 'specter', 'scincl', 'graph', 'most_cited', 'random'];
  const mdcr: MdcrRecord = {
    files: {}, queriesPerSplit: { test: o.fields.length * o.fieldQueries, val: o.fields.length * o.fieldQueries },
    chosenModels: ['bm25', 'specter', 'scincl'], jaccard: { models: [], matrix: [], average: [] }, notes: ['fabricated values (bench/report/fabricate.ts)'],
    results: Object.fromEntries(o.models.map((m) => [m, { all: summary(), types: Object.fromEntries(types.map((t) => [t, summary()])) }])),
  };

  const grid = [0.6, 0.9, 1.2, 1.5, 1.8].flatMap((k1) => [0.3, 0.5, 0.75, 0.9].map((b) => ({ k1, b, score: 0.3 + 0.1 * rng.next() })));
  const best = grid.reduce((a, b) => (b.score > a.score ? b : a));
  const models = o.models.map((name) => ({ name, kind: name.startsWith('bm25') ? 'bm25' as const : 'dense' as const, weights: name.startsWith('bm25') ? 'lexical' as const : 'random' as const, settings: {} }));
  const r: ResultsIndex = {
    format: 'citebench-results', version: 1, name: 'fabricated', configHash: 'fabricated',
    corpus: { kind: 'synthetic', articles: 2_000_000, citations: 40_000_000, synthetic: { articles: 2_000_000, seed: o.seed, generator: 'bench/report/fabricate.ts: FAKE values for timing and tests' },
      ...(o.fieldScheme === 'topics' ? { source: { format: 'openalex', name: 'OpenAlex works', release: '2025-11-03', fieldScheme: 'topics' as const } } : {}) },
    seed: o.seed, scale: o.scale, queryYear: 2019, k: o.k, measures: MEASURES,
    models,
    skipped: [],
    tuning: [{
      model: 'bm25', measure: 'map', queries: 200, poolSize: o.fieldPool, params: { k1: [...new Set(grid.map((g) => g.k1))], b: [...new Set(grid.map((g) => g.b))] },
      grid: grid.map((g) => ({ params: { k1: g.k1, b: g.b }, score: g.score })), chosen: { k1: best.k1, b: best.b },
    }],
    excluded: { files: [] }, fieldRepeats, cells, mdcr,
    significance: significanceStage({ measures: MEASURES, seed: o.seed }, dir, models, cells),
  };
  write('results.json', JSON.stringify(r, null, 1) + '\n');
  write('timings.json', JSON.stringify({ seconds: { fabricate: 0 } }) + '\n');
  write('config.json', JSON.stringify({ fabricated: o }, null, 1) + '\n');
  return r;
}
