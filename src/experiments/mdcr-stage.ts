/**
 * The runner's MDCR stage (§4): the benchmark is built from the field level's own queries, pools and run files
 * (test split = the field-level test queries, val = the field-level validation queries, model-based negatives
 * from the repeat-1 lists of the models ranking with their own encoder or BM25), written as the official files;
 * then every model whose retriever scores fixed candidate lists (BM25, dense, navigation's and re-ranking's
 * ranking phase; not the Profiler, which ranks a pool) scores every test pair as a `candidates` request over the
 * corpus, the data file's papers being its pool — so BM25's statistics are those of the data file, as
 * `citebench mdcr score` computes them on the published files — and evaluate.py's numbers are computed per field
 * (Table 3) and per candidate type (Table 4). Scores are cached in the work folder under a key of the
 * retriever's fingerprint and the files' content: an unchanged model reads them back, a changed one re-scores.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { FIELDS, type Field } from '../corpus/fields.ts';
import { evaluateMdcr, mdcrNegativeTypes, readJsonFile, type MdcrBenchmark, type MdcrResult } from '../eval/mdcr.ts';
import { mdcrPairs, mdcrScoresText, readMdcrData, type MdcrData, type MdcrPairs } from '../retrieval/mdcr-score.ts';
import type { RankedLists } from '../retrieval/retriever.ts';
import { CitebenchError } from '../util/errors.ts';
import { hashString } from '../util/rng.ts';
import { shortfallText, type MdcrRecord, type MdcrSummary } from '../report/results.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import type { ExperimentConfig } from './config.ts';
import { buildMdcr, readRunLists, writeMdcr, type MdcrModelLists, type MdcrPlan } from './mdcr.ts';
import type { ReadyModel } from './models.ts';
import { groupPath } from './plan.ts';
import type { QuerySplits } from './splits.ts';

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
  log: (line: string) => void;
}

export async function runMdcrStage(a: MdcrStageArgs): Promise<MdcrRecord> {
  const fieldCfg = a.cfg.protocols.field!;
  const fields = FIELDS.filter((f) => fieldCfg.fields.includes(f));
  const group = (split: 'test' | 'val', field: Field) => groupPath({ protocol: 'field', split, field, poolSize: fieldCfg.pool, repeat: 1, queries: fieldCfg.queries });
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
  const benchmarkPath = join(mdcrDir, 'mdcr_test.json');
  const dataPath = join(mdcrDir, 'mdcr_test_data.jsonl');
  const benchmark = readJsonFile(benchmarkPath);
  const data = readMdcrData(dataPath);
  const pairs = mdcrPairs(benchmark, data, { benchmark: benchmarkPath, data: dataPath });
  // Candidate types with candidates: an official key left empty (its model not given) has no Table 4 column.
  const types = mdcrNegativeTypes(benchmark as MdcrBenchmark, { nonEmpty: true });
  const results: MdcrRecord['results'] = {};
  const files: Record<string, string> = {
    test: 'mdcr/mdcr_test.json', test_data: 'mdcr/mdcr_test_data.jsonl', val: 'mdcr/mdcr_val.json', val_data: 'mdcr/mdcr_val_data.jsonl', report: 'mdcr/mdcr_build_report.json',
  };
  // Every model whose retriever scores fixed candidate lists scores the pairs in the corpus, with the data file's
  // papers as its pool (BM25's statistics are the file's, as over the published files), cached by its fingerprint.
  const scorers = a.scorers.filter((m) => {
    if (!m.retriever.scoresCandidates) a.log(`${m.name}: left out (its retriever ranks a pool; it does not score fixed candidate lists)`);
    return m.retriever.scoresCandidates;
  });
  const benchmarkSha = createHash('sha256').update(readFileSync(benchmarkPath)).digest('hex');
  for (const m of scorers.filter((x) => x.imported)) noteUnscored(m, a, data, pairs);
  for (const m of scorers) {
    const key = hashString(JSON.stringify({ model: m.retriever.fingerprint, benchmark: benchmarkSha, data: data.sha256 })).toString(16).padStart(8, '0');
    const cached = join(a.cfg.work, 'mdcr-scores', `${m.name}-${key}.json`);
    let text: string;
    if (existsSync(cached)) text = readFileSync(cached, 'utf8');
    else {
      text = mdcrScoresText(data, pairs, await scoreInCorpus(a.store, m, data, pairs));
      writeFileAtomic(cached, text);
    }
    const scoresFile = `mdcr/scores/${m.name}.json`;
    writeFileAtomic(join(a.dir, scoresFile), text);
    files[`scores_${m.name}`] = scoresFile;
    const parsed = readJsonFile(join(a.dir, scoresFile));
    const all = summary(evaluateMdcr(benchmark, parsed, { benchmarkPath, scoresPath: scoresFile }));
    const byType: Record<string, MdcrSummary> = {};
    for (const t of types) byType[t] = summary(evaluateMdcr(benchmark, parsed, { benchmarkPath, scoresPath: scoresFile, candidateType: t }));
    results[m.name] = { all, types: byType };
    a.log(`${m.name}: MAP ${all.avg.map.toFixed(1)}, R@5 ${all.avg.recall_5.toFixed(1)} (evaluate.py AVG)`);
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

/** The pairs scored by a model's own retriever over the corpus (data-file positions in, data-file positions out). */
/** Imported vectors: MDCR candidates without one rank last (the retriever's candidate mode); counted and said. */
function noteUnscored(m: ReadyModel, a: MdcrStageArgs, data: MdcrData, pairs: MdcrPairs): void {
  const present = m.embeddings!.presentMask();
  const lacking = new Set<number>();
  for (const c of pairs.candidates) {
    for (const i of c) {
      const x = a.store.indexOf(data.ids[i]);
      if (x < 0 || !present[x]) lacking.add(i);
    }
  }
  if (!lacking.size) return;
  const first = [...lacking].sort((x, y) => x - y).slice(0, 5).map((i) => data.ids[i]);
  a.log(`${m.name}: ${lacking.size} MDCR candidate(s) have no vector and rank last (${first.join(', ')}${lacking.size > first.length ? ', …' : ''})`);
  m.settings.mdcrWithoutVector = lacking.size;
  m.summary = `${m.summary}; ${lacking.size} MDCR candidate(s) without a vector rank last`;
}

async function scoreInCorpus(store: CorpusStore, m: ReadyModel, data: MdcrData, pairs: MdcrPairs): Promise<RankedLists> {
  const corpus = Int32Array.from(data.ids, (id) => store.indexOf(id));
  const missing = corpus.indexOf(-1);
  if (missing >= 0) throw new CitebenchError(`MDCR data paper ${data.ids[missing]} is not in the corpus store`);
  const back = new Map<number, number>();
  corpus.forEach((c, i) => back.set(c, i));
  const toCorpus = (l: Uint32Array) => Uint32Array.from(l, (i) => corpus[i]);
  const k = Math.max(1, ...pairs.candidates.map((c) => c.length));
  const r = await m.retriever.search({ queries: toCorpus(pairs.queries), pool: Uint32Array.from(corpus).sort(), candidates: pairs.candidates.map(toCorpus), k, excludeSelf: false, setting: 'transductive' });
  pairs.candidates.forEach((c, q) => {
    if (r.offsets[q + 1] - r.offsets[q] !== c.length) throw new CitebenchError(`${m.name} scored ${r.offsets[q + 1] - r.offsets[q]} of ${c.length} MDCR candidates of query ${data.ids[pairs.queries[q]]}`);
  });
  // An article without vectors (no sentence) cannot match: the lowest float32, a finite score for the file.
  const scores = Float32Array.from(r.scores, (x) => (x === -Infinity ? -3.4028234663852886e38 : x));
  return { offsets: r.offsets, docs: Uint32Array.from(r.docs, (d) => back.get(d)!), scores };
}

function summary(r: MdcrResult): MdcrSummary {
  return { avg: r.avg, fields: r.fields.map((f) => ({ field: f.field, queries: f.queries, values: f.values })) };
}
