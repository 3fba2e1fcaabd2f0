/**
 * The BEIR protocol (`protocols.beir`): every configured BM25 and dense model on a BEIR-layout task
 * (corpus/beir.ts) through experiment(), like the paper's protocols — run and qrels files, per-query values,
 * cache keys and locks, results.json and the report. The task gets a corpus store of its own (corpus documents, then query
 * documents) under the work folder, keyed by the content of its corpus.jsonl and queries.jsonl; its pool is the
 * task's corpus, its queries and graded judgements come from qrels/<split>.tsv, so one cell per model.
 *
 * Which models run is asked of their kinds' entries, not of kind names: every model runs, built again on the
 * task's store — over the task's own BM25 index where its kind needs one, with the parameters the run chose (a
 * tuned one as tuned on the paper's validation split), its preparation encoding the task's documents and queries
 * into embedding stores of the task, and a model built on others (a re-ranker) on them as run on the task —
 * except those whose entry says why not (offTask: the citation graph a task does not have, vectors imported for
 * the corpus's ids) or that are built on such a model; the results say why.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildBeirStore } from '../corpus/beir.ts';
import { CorpusStore } from '../corpus/store.ts';
import { corpusKey } from '../corpus/store-key.ts';
import { writeQrels } from '../eval/trec-write.ts';
import type { BeirRecord, CellRecord, CellSummary, TuningRecord } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import { cellSummary, groupCellRecord, type GroupContext } from './cells.ts';
import type { ExperimentConfig } from './config.ts';
import { experiment, type CellModel } from './experiment.ts';
import { entryOf, prepareOnStore, withoutResources, type BuildContext } from './kinds/index.ts';
import type { ReadyModel } from './models.ts';
import { sortedUnique } from '../util/sorted.ts';
import { beirTaskDir, beirTaskFiles, beirTopicSet } from './topic-sets.ts';

export interface BeirStageInput {
  cfg: ExperimentConfig;
  /** The run's cell context (results folder, k, measures, locks …). */
  ctx: GroupContext;
  /** The run's model build context (threads, device …); its store, index and work folder become the task's. */
  build: BuildContext;
  /** The run's ready models, and the parameters its tuning chose. */
  ready: ReadyModel[];
  tuning: TuningRecord[];
  log: (line: string) => void;
}

export async function runBeirStage(inp: BeirStageInput): Promise<{ cells: CellSummary[]; record: BeirRecord }> {
  const { cfg, log } = inp;
  const task = cfg.protocols.beir!;
  const { files, sha256: sha } = beirTaskFiles(task);
  const taskDir = beirTaskDir(cfg.work, task, sha);
  const storeDir = join(taskDir, 'store');
  if (!existsSync(join(storeDir, 'meta.json'))) {
    log(`${task.name}: building its corpus store from ${task.path}`);
    await buildBeirStore(task.path, storeDir, { log });
  }
  const store = CorpusStore.open(storeDir);
  const released: ReadyModel[] = [];
  try {
    // The task's topic set (topic-sets.ts): its judged queries over its corpus, named by its files.
    const t = beirTopicSet(store, task, sha);
    if (t.topics.length === 0) throw new CitebenchError(`${files[2]}: no judgements: nothing to evaluate`);
    log(`${task.name} (${task.split}, ${t.name}): ${t.topics.length} judged queries, ${t.pool.length} documents, ${t.judgements} judgements`);
    const models: CellModel[] = [];
    const notRun: BeirRecord['notRun'] = [];
    const build: BuildContext = { ...withoutResources(inp.build), cfg: { ...inp.build.cfg, work: taskDir }, store, corpusKey: corpusKey(storeDir), ready: [],
      notReady: (name) => (notRun.some((x) => x.name === name) ? 'not run on the task' : undefined) };
    const all = Uint32Array.from({ length: store.size }, (_, i) => i);
    for (const m of inp.ready) {
      const mc = cfg.models.find((c) => c.name === m.name)!;
      const entry = entryOf(mc);
      const off = entry.offTask?.(mc, { what: 'a BEIR task', corpusIds: false });
      if (off) {
        notRun.push({ name: m.name, reason: `a ${m.kind} model ${off}` });
        continue;
      }
      await prepareOnStore(mc, build);
      const tm = await entry.build(mc, build, inp.tuning.find((t) => t.model === m.name)?.chosen);
      // Built on a model that does not run on the task (a re-ranker of navigation's lists): its skip says which.
      if ('reason' in tm) {
        notRun.push({ name: m.name, reason: tm.reason });
        continue;
      }
      released.push(tm);
      // The task's queries in the query role, every document in the document role.
      await tm.prepare?.({ queries: sortedUnique(t.topics), pool: all, all, paperId: (i) => store.id(i) }, { log, timed: inp.build.timed });
      models.push(tm);
      build.ready.push(tm); // the models below it (a re-ranker) are built on it as run on the task
    }
    const { group, id: path } = t;
    const qrelsFile = `qrels/${path}.qrels`;
    writeQrels(join(inp.ctx.resultsDir, qrelsFile), t.queryIds, (d) => store.id(d), t.qrels);
    const r = await experiment<CellRecord>({
      docs: t.docs, topics: t.topics, pool: t.pool, qrels: t.qrels, retrievers: models, measures: inp.ctx.measureNames, k: inp.ctx.k,
      emptyLists: inp.ctx.emptyLists, log: inp.ctx.log,
      cache: {
        dir: inp.ctx.resultsDir, name: path, keyParts: { corpus: { documents: sha[0], queries: sha[1] }, group: { task: task.name, split: task.split } }, locked: inp.ctx.locked, lockStaleMs: inp.ctx.lockStaleMs,
        record: groupCellRecord(group, t.pool.length, qrelsFile),
      },
    });
    const cells = r.cells.map((c) => cellSummary(c, `cells/${c.model}/${path}.json`));
    return {
      cells,
      record: { name: task.name, split: task.split, documents: t.pool.length, queries: t.topics.length, judgements: t.judgements, sha256: { corpus: sha[0], queries: sha[1], qrels: sha[2] }, notRun },
    };
  } finally {
    for (const m of released) await m.release();
    store.close();
  }
}
