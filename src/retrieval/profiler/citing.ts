/**
 * Who may shape a candidate's public profile (Goyal et al. 2026 §3.2): the articles citing it, restricted so a
 * profile never carries what the evaluation must not see. In both settings no query of the request contributes
 * (a query cites its own positives: letting it into their profiles would hand the answer to the scorer); under
 * the inductive setting (§3.1) only articles published strictly before the query's year do (unknown years are
 * left out). Queries of different years get different profiles, so a request is split into scopes by year.
 */
import type { SearchRequest } from '../retriever.ts';

/** Inbound citations and years (CorpusStore satisfies it). */
export interface CitationGraph {
  readonly size: number;
  readonly years: Uint16Array;
  readonly inOffsets: Uint32Array;
  readonly inSources: Uint32Array;
}

/** A set of the request's queries that share one profile restriction. */
export interface ProfileScope {
  /** Citing articles must be published before this year; null = transductive (any year). */
  before: number | null;
  /** Positions in the request's `queries`. */
  positions: number[];
}

export function profileScopes(graph: CitationGraph, req: Pick<SearchRequest, 'queries' | 'setting'>): ProfileScope[] {
  if ((req.setting ?? 'transductive') === 'transductive') return [{ before: null, positions: Array.from(req.queries.keys()) }];
  const byYear = new Map<number, number[]>();
  req.queries.forEach((q, i) => {
    const y = graph.years[q];
    if (!byYear.has(y)) byYear.set(y, []);
    byYear.get(y)!.push(i);
  });
  // An unknown query year (0) admits no citing article: nothing is known to precede it.
  return [...byYear.entries()].sort((a, b) => a[0] - b[0]).map(([y, positions]) => ({ before: y, positions }));
}

/** The allowed citing articles of each pool member, as CSR over pool positions (each list ascending). */
export interface CitingSets {
  offsets: Uint32Array;
  sources: Uint32Array;
}

export function citingSets(graph: CitationGraph, pool: Uint32Array, queries: Uint32Array, before: number | null): CitingSets {
  const isQuery = new Uint8Array(graph.size);
  for (const q of queries) isQuery[q] = 1;
  const allowed = (j: number) => !isQuery[j] && (before === null || (graph.years[j] !== 0 && graph.years[j] < before));
  const offsets = new Uint32Array(pool.length + 1);
  for (let i = 0; i < pool.length; i++) {
    let n = 0;
    for (let e = graph.inOffsets[pool[i]]; e < graph.inOffsets[pool[i] + 1]; e++) if (allowed(graph.inSources[e])) n++;
    offsets[i + 1] = offsets[i] + n;
  }
  const sources = new Uint32Array(offsets[pool.length]);
  for (let i = 0, o = 0; i < pool.length; i++) {
    for (let e = graph.inOffsets[pool[i]]; e < graph.inOffsets[pool[i] + 1]; e++) if (allowed(graph.inSources[e])) sources[o++] = graph.inSources[e];
    sources.subarray(offsets[i], offsets[i + 1]).sort();
  }
  return { offsets, sources };
}

/** The whole corpus as a pool (a request without one). */
export function wholeCorpus(size: number): Uint32Array {
  return Uint32Array.from({ length: size }, (_, i) => i);
}
