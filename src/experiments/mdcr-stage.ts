/**
 * The runner's MDCR stage (§4): the benchmark is built from the field level's own queries, pools and run files
 * (test split = the field-level test queries, val = the field-level validation queries, model-based negatives
 * from the repeat-1 lists of the models ranking with their own encoder or BM25), written as the official files;
 * then every model whose retriever scores fixed candidate lists (BM25, dense, navigation's and re-ranking's
 * ranking phase; not the Profiler, which ranks a pool) scores the test split's topic set (topic-sets.ts
 * `mdcr/test`: every pair as a candidate list, the data file's papers as the pool — so BM25's statistics are those
 * of the data file, as `citebench mdcr score` computes them on the published files) through experiment(), which
 * writes each model's scores file and evaluates it as evaluate.py does, per field (Table 3) and per candidate type
 * (Table 4). Each model's scores are a cell of the one cache: an unchanged model reads them back.
 */
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { fieldAbbrev, schemeFields, type FieldName } from '../corpus/fields.ts';
import { shortfallText, type MdcrRecord } from '../report/results.ts';
import { fileContentHash } from '../retrieval/dense/file-hash.ts';
import type { ExperimentConfig } from './config.ts';
import { experiment, type CellCost, type ExperimentCell } from './experiment.ts';
import { MDCR_SPLITS, buildMdcr, writeMdcr, type MdcrModelLists, type MdcrPlan } from '../sampling/mdcr-plan.ts';
import type { MdcrSplit, RankedIds } from '../sampling/mdcr-build.ts';
import { readRankedRun } from '../eval/trec-run.ts';
import { lineNumbersOf } from '../eval/line-scan.ts';
import { InputError } from '../util/errors.ts';
import type { ReadyModel } from './models.ts';
import { groupPath } from './plan.ts';
import type { QuerySplits } from './splits.ts';
import { mdcrTopicSet } from './topic-sets.ts';

/** A model's MDCR scores cell record, relative to the results folder. */
export const mdcrCellFile = (model: string): string => `mdcr/cells/${model}.json`;

export interface MdcrStageArgs {
  cfg: ExperimentConfig;
  store: CorpusStore;
  /** Results folder (run files are read from it, MDCR files written under mdcr/). */
  dir: string;
  /** Models whose run files give the model-based negatives (those ranking with their own encoder or BM25). */
  models: ReadyModel[];
  /** Models that score the test pairs: every ready one whose retriever scores fixed candidate lists. */
  scorers: ReadyModel[];
  splits: QuerySplits;
  /** Field-level pools of repeat 1 per split and field, as the cells searched them. */
  pools: Map<string, Uint32Array>;
  /** What each scores cell computed now cost, by its record's file (timings.json). */
  costs?: Map<string, CellCost>;
  log: (line: string) => void;
}

export async function runMdcrStage(a: MdcrStageArgs): Promise<MdcrRecord> {
  const fieldCfg = a.cfg.protocols.field!;
  const fields = schemeFields(a.store.fieldScheme).filter((f) => fieldCfg.fields.includes(f));
  const group = (split: 'test' | 'val', field: FieldName) => groupPath({ protocol: 'field', split, field, poolSize: fieldCfg.pool, repeat: 1, queries: fieldCfg.queries });
  const plan: MdcrPlan = { fields, seed: a.cfg.seed, queries: { test: new Map(), val: new Map() }, pools: { test: new Map(), val: new Map() } };
  for (const split of ['test', 'val'] as const) {
    for (const f of fields) {
      plan.queries[split].set(f, a.splits.get('field', split, f));
      plan.pools[split].set(f, a.pools.get(group(split, f))!);
    }
  }
  // A field too small for both splits at full size has a smaller val split (QuerySplits); the build report says so.
  const short = a.splits.shortfalls().filter((s) => s.protocol === 'field' && s.setting === 'transductive');
  const notes = fields.flatMap((f) => short.filter((s) => s.field === f).map((s) => `val: ${shortfallText(s)}`));
  if (notes.length) plan.notes = notes;
  // Every model's lists from its run files: identical whether the cell ran now or was reused.
  const lists: MdcrModelLists = {};
  for (const m of a.models) lists[m.name] = readRunLists(a.store, (split, f) => join(a.dir, 'runs', m.name, `${group(split, f)}.trec`), plan);
  const built = buildMdcr(a.store, plan, lists);
  const mdcrDir = join(a.dir, 'mdcr');
  writeMdcr(mdcrDir, a.store, built, { seed: a.cfg.seed, fields: fields.length, queriesPerField: fieldCfg.queries, pool: fieldCfg.pool });
  for (const n of [...built.official.notes, ...built.test.notes, ...built.val.notes]) a.log(`note: ${n}`);
  a.log(`built: ${built.test.counts.queries} test and ${built.val.counts.queries} val queries; model-based negatives from ${built.test.chosen.join(', ') || 'no model'}`);

  // Score the test split with every model, from the files just written.
  const set = mdcrTopicSet(a.store, mdcrDir, 'test');
  const files: Record<string, string> = {
    test: 'mdcr/mdcr_test.json', test_data: 'mdcr/mdcr_test_data.jsonl', val: 'mdcr/mdcr_val.json', val_data: 'mdcr/mdcr_val_data.jsonl', report: 'mdcr/mdcr_build_report.json',
  };
  const scorers = a.scorers.filter((m) => {
    if (!m.retriever.scoresCandidates) a.log(`${m.name}: left out (its retriever ranks a pool; it does not score fixed candidate lists)`);
    return m.retriever.scoresCandidates;
  });
  for (const m of scorers) noteUnscorable(m, set.candidates!, a);
  const scoresFile = (model: string) => `mdcr/scores/${model}.json`;
  const r = await experiment<ExperimentCell & { files: { scores: string } }>({
    ...set, excludeSelf: false, k: Math.max(1, ...set.candidates!.map((c) => c.length)), retrievers: scorers, log: a.log,
    cache: {
      // The scores file is the cell's run; its record sits beside the MDCR files (cells/ holds trec_eval cells only).
      dir: a.dir, name: set.id, runFile: scoresFile, cellFile: mdcrCellFile, keyParts: { benchmark: fileContentHash(join(mdcrDir, 'mdcr_test.json')), data: fileContentHash(join(mdcrDir, 'mdcr_test_data.jsonl')) },
      record: (c, run) => ({ ...c, files: { scores: run! } }), costs: (file, c) => a.costs?.set(file, c),
    },
  });
  const results: MdcrRecord['results'] = {};
  for (const c of r.cells) {
    files[`scores_${c.model}`] = scoresFile(c.model);
    results[c.model] = { all: c.mdcr!.all, types: c.mdcr!.types };
    a.log(`${c.model}: MAP ${c.mdcr!.all.avg.map.toFixed(1)}, R@5 ${c.mdcr!.all.avg.recall_5.toFixed(1)} (evaluate.py AVG)`);
  }
  const j = built.test.jaccard;
  return {
    files,
    queriesPerSplit: { test: built.test.counts.queries, val: built.val.counts.queries },
    chosenModels: built.test.chosen,
    jaccard: { models: j.models, matrix: j.matrix, average: j.average },
    notes: [...new Set([...built.official.notes, ...built.test.notes, ...built.val.notes])],
    results,
  };
}

/** Candidates a model cannot score (imported vectors without one) rank last: counted, said, and noted in its summary. */
function noteUnscorable(m: ReadyModel, candidates: Uint32Array[], a: MdcrStageArgs): void {
  if (!m.unscorable) return;
  const all = new Uint32Array(candidates.reduce((n, c) => n + c.length, 0));
  let n = 0;
  for (const c of candidates) (all.set(c, n), (n += c.length));
  const lacking = [...new Set(m.unscorable(all))].sort((x, y) => x - y);
  if (!lacking.length) return;
  const first = lacking.slice(0, 5).map((i) => a.store.id(i));
  a.log(`${m.name}: ${lacking.length} MDCR candidate(s) have no vector and rank last (${first.join(', ')}${lacking.length > first.length ? ', …' : ''})`);
  m.settings.mdcrWithoutVector = lacking.length;
  m.summary = `${m.summary}; ${lacking.length} MDCR candidate(s) without a vector rank last`;
}

/**
 * Ranked lists from a TREC run (`qid Q0 docno rank score tag`, ids = paper ids), best first by score, ties by
 * docno descending as trec_eval orders them. `path` may contain `{split}` (test, val) and `{field}` (the paper's
 * abbreviation, e.g. CS) to read one file per split and field, or be a function of both; otherwise one file
 * serves every query (a query sampled in two fields then gets the same list in both).
 */
export function readRunLists(store: CorpusStore, path: string | ((split: MdcrSplit, field: FieldName) => string), plan: MdcrPlan): Record<MdcrSplit, Map<FieldName, RankedIds>> {
  const out = { test: new Map<FieldName, RankedIds>(), val: new Map<FieldName, RankedIds>() };
  const cache = new Map<string, Map<string, number[]>>();
  for (const split of MDCR_SPLITS) {
    for (const f of plan.fields) {
      const file = typeof path === 'function' ? path(split, f) : path.replaceAll('{split}', split).replaceAll('{field}', fieldAbbrev(f));
      let lists = cache.get(file);
      if (!lists) cache.set(file, (lists = parseRun(store, file)));
      const queries = plan.queries[split].get(f)!;
      const offsets = new Uint32Array(queries.length + 1);
      const docs: number[] = [];
      queries.forEach((q, k) => {
        const l = lists!.get(store.id(q));
        if (!l) throw new InputError(file, undefined, store.id(q), `no ranked list for ${split} query ${store.id(q)} (${f}); write the plan with --write-plan to see the queries`);
        docs.push(...l);
        offsets[k + 1] = docs.length;
      });
      out[split].set(f, { offsets, docs: Uint32Array.from(docs) });
    }
    if (cache.size > 4) cache.clear(); // one file per split and field: keep memory bounded
  }
  return out;
}

/** A run's lists in trec_eval's order (eval/trec-run.ts), as corpus indices: query id → ranked docs. */
function parseRun(store: CorpusStore, file: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [qid, list] of readRankedRun(file).lists) {
    out.set(qid, list.map((x) => {
      const doc = store.indexOf(x.docno);
      if (doc < 0) throw new InputError(file, lineNumbersOf(file, [x.entry])[0], 'docno', `paper ${x.docno} is not in the corpus store`);
      return doc;
    }));
  }
  return out;
}
