/**
 * The encode stage of a run: every article a dense model will search, encoded before any cell; and the rule
 * that drops field-level repeats a field-cited set cannot fill (the encode and cells stages both apply it).
 */
import type { CorpusStore } from '../corpus/store.ts';
import { samplePool } from '../sampling/pools.ts';
import { shardLabel, type Shard } from '../util/shard.ts';
import { groupPoolOptions } from './cells.ts';
import type { ExperimentConfig } from './config.ts';
import { checkImportedCoverage, type ReadyModel } from './models.ts';
import type { PoolGroup } from './plan.ts';
import type { QuerySplits } from './splits.ts';

export interface PlanContext {
  store: CorpusStore;
  splits: QuerySplits;
}

export interface EncodeContext {
  ready: ReadyModel[];
  groups: PoolGroup[];
  timed: <T>(stage: string, f: () => Promise<T>) => Promise<T>;
  log: (line: string) => void;
}

/**
 * Field-level repeats beyond the first are dropped where the field-cited set holds no more than one pool
 * (exhaustion does not depend on the repeat, so a shard that did not run repeat 1 can tell too).
 */
export function exhaustedField(p: PlanContext, cfg: ExperimentConfig, g: PoolGroup, memo: Map<string, boolean>): boolean {
  if (g.protocol !== 'field') return false;
  const fkey = `${g.split}/${g.field}/${g.setting ?? ''}`;
  if (!memo.has(fkey)) {
    const queries = p.splits.get(g.protocol, g.split, g.field, g.setting);
    memo.set(fkey, samplePool(p.store, queries, { ...groupPoolOptions(cfg, g), repeat: 1 }).exhausted);
  }
  return memo.get(fkey)!;
}

/**
 * Stage 3b: every article a dense model will search — the queries and pools of every group — encoded before
 * any cell, chunk by chunk (a shard: chunks c mod N = I). Each chunk is encoded in one call whichever process
 * does it, so a sharded encode and a single process write the same bytes.
 */
export async function encodePlan(p: PlanContext & EncodeContext, cfg: ExperimentConfig, shard?: Shard): Promise<number> {
  const dense = p.ready.filter((m) => m.encodeFor);
  const imported = p.ready.filter((m) => m.imported);
  if (!dense.length && !imported.length) return 0;
  // 1: a query, 2: a pool member (bits).
  const mark = new Uint8Array(p.store.size);
  const memo = new Map<string, boolean>();
  for (const g of p.groups) {
    if (g.repeat > 1 && exhaustedField(p, cfg, g, memo)) continue;
    const queries = p.splits.get(g.protocol, g.split, g.field, g.setting);
    for (const q of queries) mark[q] |= 1;
    const pool = samplePool(p.store, queries, groupPoolOptions(cfg, g));
    for (const d of pool.members) mark[d] |= 2;
  }
  const where = (bits: number) => {
    const out: number[] = [];
    for (let i = 0; i < mark.length; i++) if (mark[i] & bits) out.push(i);
    return Uint32Array.from(out);
  };
  const union = where(3);
  // Imported vectors: nothing to encode; the plan's queries must have vectors, pool articles without are counted.
  for (const m of imported) checkImportedCoverage(m, where(1), where(2), (i) => p.store.id(i), p.log);
  let encoded = 0;
  for (const m of dense) {
    // Queries in the query role, pool articles in the document role (one pass over the union for one store).
    const now = await p.timed(`encode ${m.name}`, () => m.encodeFor!(where(1), where(2), { shard, progress: true }));
    p.log(`[encode] ${m.name}: ${now} articles encoded now (${shardLabel(shard)} of the ${union.length} the plan searches)`);
    encoded += now;
  }
  return encoded;
}
