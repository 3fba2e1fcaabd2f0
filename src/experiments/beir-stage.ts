/**
 * The BEIR protocol (`protocols.beir`): every configured BM25 and dense model on a BEIR-layout task
 * (corpus/beir.ts) through the same cells as the paper's protocols — run and qrels files, per-query values,
 * cache keys, results.json and the report. The task gets a corpus store of its own (corpus documents, then query
 * documents) under the work folder, keyed by the content of its corpus.jsonl and queries.jsonl; its pool is the
 * task's corpus, its queries and graded judgements come from qrels/<split>.tsv, so one cell per model.
 *
 * Tuned BM25 models run with the parameters the run tuned on the paper's validation split; dense models encode
 * the task's documents and queries into embedding stores of the task. Navigation, Profiler and re-ranking
 * models need the citation graph or a first stage on the main corpus: they are not run on a BEIR task (the
 * results say so).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beirTopics, buildBeirStore, checkBeirFolder, BEIR_FILES } from '../corpus/beir.ts';
import { CorpusStore } from '../corpus/store.ts';
import { corpusKey } from '../corpus/store-key.ts';
import { buildIndex } from '../retrieval/bm25/index.ts';
import { Bm25Retriever } from '../retrieval/bm25/retriever.ts';
import { fileContentHash } from '../retrieval/dense/file-hash.ts';
import type { Device } from '../retrieval/dense/encoder.ts';
import type { BeirRecord, CellSummary } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import { runGroup, type CellModel, type GroupContext } from './cells.ts';
import type { ExperimentConfig } from './config.ts';
import { denseRetriever, isSkipped, resolveDense, type ReadyModel } from './models.ts';
import { groupPath, type PoolGroup } from './plan.ts';

export interface BeirStageInput {
  cfg: ExperimentConfig;
  /** The run's cell context (results folder, k, measures …); store and sample key are replaced by the task's. */
  ctx: GroupContext;
  /** The run's ready models (BM25 parameters after tuning). */
  ready: ReadyModel[];
  threads: number;
  device?: Device;
  log: (line: string) => void;
}

export async function runBeirStage(inp: BeirStageInput): Promise<{ cells: CellSummary[]; record: BeirRecord }> {
  const { cfg, log } = inp;
  const task = cfg.protocols.beir!;
  const files = [BEIR_FILES.corpus, BEIR_FILES.queries, BEIR_FILES.qrels(task.split)].map((f) => join(task.path, f));
  checkBeirFolder(task.path, task.split);
  const sha = files.map((f) => fileContentHash(f));
  // The store and embeddings depend on the documents and queries; the judgements only on the cells.
  const taskDir = join(cfg.work, 'beir', `${task.name}-${createHash('sha256').update(sha[0]).update(sha[1]).digest('hex').slice(0, 12)}`);
  const storeDir = join(taskDir, 'store');
  if (!existsSync(join(storeDir, 'meta.json'))) {
    log(`${task.name}: building its corpus store from ${task.path}`);
    await buildBeirStore(task.path, storeDir, { log });
  }
  const store = CorpusStore.open(storeDir);
  const released: ReadyModel[] = [];
  try {
    const t = beirTopics(store, task.path, task.split);
    if (t.queries.length === 0) throw new CitebenchError(`${files[2]}: no judgements: nothing to evaluate`);
    log(`${task.name} (${task.split}): ${t.queries.length} judged queries, ${t.pool.length} documents, ${t.judgements} judgements`);
    const models: CellModel[] = [];
    const notRun: BeirRecord['notRun'] = [];
    let index: Awaited<ReturnType<typeof buildIndex>> | undefined;
    for (const m of inp.ready) {
      if (m.kind === 'bm25') {
        index ??= await buildIndex(store);
        const s = m.settings as { k1: number; b: number; accurate?: boolean };
        models.push({ name: m.name, retriever: new Bm25Retriever(index, store, { params: { k1: s.k1, b: s.b, accurate: s.accurate }, tieKey: store.idOrder, threads: inp.threads, name: m.name }) });
      } else if (m.kind === 'dense') {
        const mc = cfg.models.find((c) => c.name === m.name);
        if (mc?.kind !== 'dense') throw new Error(`dense model ${m.name} has no dense config`);
        const resolved = await resolveDense(mc, cfg.modelsDir);
        if (isSkipped(resolved)) throw new CitebenchError(`${m.name}: ${resolved.reason}`);
        const dm = await denseRetriever(mc, resolved, store, corpusKey(storeDir), taskDir, inp.threads, inp.device);
        released.push(dm);
        const all = Uint32Array.from({ length: store.size }, (_, i) => i);
        const now = await dm.embeddings!.encodeMissing(dm.encoder!, store, all, { progress: false });
        if (now) log(`${task.name}: ${m.name} encoded ${now} documents and queries`);
        models.push(dm);
      } else {
        notRun.push({ name: m.name, reason: `${m.kind} models need the citation graph or a first stage of the main corpus; a BEIR task has neither here` });
      }
    }
    const group: PoolGroup = { protocol: 'beir', split: 'test', field: null, poolSize: t.pool.length, repeat: 1, queries: t.queries.length, task: task.name };
    const ctx: GroupContext = { ...inp.ctx, store, sampleKey: JSON.stringify({ beir: sha, split: task.split }) };
    const r = await runGroup(ctx, group, t.queries, models, { pool: { members: t.pool, cited: 0, exhausted: false }, qrels: t.qrels, qids: t.queryIds });
    const cells = r.cells.map(({ perQuery: _p, queryIds: _q, ...rest }) => ({ ...rest, file: `cells/${rest.model}/${groupPath(group)}.json` }));
    return {
      cells,
      record: { name: task.name, split: task.split, documents: t.pool.length, queries: t.queries.length, judgements: t.judgements, sha256: { corpus: sha[0], queries: sha[1], qrels: sha[2] }, notRun },
    };
  } finally {
    for (const m of released) await m.release();
    store.close();
  }
}
