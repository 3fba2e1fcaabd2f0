/**
 * Configured models built on an MDCR data file's papers (`citebench mdcr score --config FILE --model NAME`, and
 * `--model bm25`): any kind, through the registry — its entry's `needs` prepared over the file's papers, its
 * `build` on them (and on the models it names, built first the same way), its `prepare` on the pairs' queries and
 * candidates — so a kind scores MDCR pairs with no code of its own in the command. The papers have texts and ids
 * only (with the corpus's S2 ids: imported vectors cover them): a kind that needs a citation graph says so (its
 * entry's offTask).
 */
import { availableParallelism } from 'node:os';
import type { CorpusStore } from '../corpus/store.ts';
import type { MdcrData, MdcrPairs } from '../eval/mdcr-data.ts';
import type { Device } from '../retrieval/dense/encoder.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import { CitebenchError } from '../util/errors.ts';
import { sortedUnique } from '../util/sorted.ts';
import { entryOf, prepareOnStore, type BuildContext } from './kinds/index.ts';
import type { ModelConfigBase } from './kinds/types.ts';
import type { ReadyModel } from './models.ts';

/**
 * The data file's papers as the store models are built on: positions in the file, its paper ids, ties broken in
 * file order (as the scores file's experiment orders them). Texts and ids are all a kind may read of it here;
 * graph-based kinds are refused before they are built (offTask).
 */
export function mdcrPaperStore(data: MdcrData): CorpusStore {
  const n = data.ids.length;
  const store = {
    size: n,
    text: (i: number) => data.texts.text(i),
    texts: (from?: number, to?: number) => data.texts.texts(from, to),
    id: (i: number) => data.ids[i],
    indexOf: (id: string) => data.indexOf.get(id) ?? -1,
    idOrder: Uint32Array.from({ length: n }, (_, i) => i),
    close: () => {},
  };
  // The subset of a CorpusStore the kinds built here read (texts, ids, tie order); see the module comment.
  return store as unknown as CorpusStore;
}

/**
 * The names `name` is built on, itself included: every earlier model its parsed config names (a re-ranker's
 * first stage and scorers, a fusion's inputs — a config may name only models above it), transitively.
 */
export function modelsUsed(models: readonly ModelConfigBase[], name: string): Set<string> {
  const byName = new Map(models.map((m) => [m.name, m]));
  const used = new Set<string>();
  const visit = (n: string) => {
    if (used.has(n)) return;
    used.add(n);
    const m = byName.get(n)!;
    const earlier = new Set(models.slice(0, models.indexOf(m)).map((x) => x.name));
    const walk = (v: unknown): void => {
      if (typeof v === 'string') {
        if (earlier.has(v)) visit(v);
      } else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    const { name: _own, kind: _kind, ...rest } = m as unknown as Record<string, unknown>;
    walk(rest);
  };
  visit(name);
  return used;
}

export interface MdcrModelOptions {
  /** Where the file names the config in errors (`configs/x.yaml`, `--model bm25`). */
  source: string;
  /** Cache folder: embedding stores of the papers (default: a scratch folder the caller removes). */
  work: string;
  modelsDir?: string;
  threads?: number;
  device?: Device;
  allowRemote?: boolean;
  log: (line: string) => void;
}

/** The ready model `name` of `models` over the data file's papers, and a release of every model built for it. */
export async function mdcrModel(models: readonly ModelConfigBase[], name: string, data: MdcrData, pairs: MdcrPairs, opts: MdcrModelOptions): Promise<{ model: ReadyModel; retriever: Retriever; release(): Promise<void> }> {
  if (!models.some((m) => m.name === name)) throw new CitebenchError(`--model ${name}: ${opts.source} configures no such model (have: ${models.map((m) => m.name).join(', ')})`);
  const used = modelsUsed(models, name);
  const store = mdcrPaperStore(data);
  const notRun = new Map<string, string>();
  const ctx: BuildContext = {
    cfg: { seed: 1, k: 1, queryYear: 0, work: opts.work, modelsDir: opts.modelsDir, validation: { queries: 0 }, protocols: {} },
    store, corpusKey: data.sha256, ready: [], notReady: (n) => notRun.get(n),
    threads: opts.threads ?? availableParallelism(), device: opts.device, allowRemote: opts.allowRemote, log: opts.log, timed: (_stage, f) => f(),
  };
  const queries = sortedUnique(pairs.queries);
  const pool = sortedUnique(pairs.candidates.flatMap((c) => Array.from(c)));
  const plan = { queries, pool, all: sortedUnique([...queries, ...pool]), paperId: (i: number) => data.ids[i] };
  const built: ReadyModel[] = [];
  const release = async () => {
    for (const m of built) await m.release();
  };
  try {
    for (const m of models) {
      if (!used.has(m.name)) continue;
      const entry = entryOf(m);
      const off = entry.offTask?.(m, { what: 'an MDCR data file', corpusIds: true });
      const why = (reason: string) => `${opts.source}: models.${m.name}${m.name === name ? '' : ` (which ${name} is built on)`}: ${reason}`;
      if (off) {
        if (m.name === name) throw new CitebenchError(why(`a ${m.kind} model ${off}`));
        notRun.set(m.name, `not built on the data file's papers: a ${m.kind} model ${off}`);
        continue;
      }
      if (entry.tuning?.(m)) throw new CitebenchError(why('tunes on a validation split, which mdcr score does not have: give it fixed values'));
      await prepareOnStore(m, ctx);
      const r = await entry.build(m, ctx);
      if ('reason' in r) {
        if (m.name === name) throw new CitebenchError(why(r.reason));
        notRun.set(m.name, r.reason);
        continue;
      }
      built.push(r);
      await r.prepare?.(plan, { log: opts.log, timed: ctx.timed });
      ctx.ready.push(r);
    }
    const model = built.find((m) => m.name === name)!;
    return { model, retriever: model.retriever, release };
  } catch (e) {
    await release();
    throw e;
  }
}
