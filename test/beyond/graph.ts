/** Small hand-made citation graphs for the beyond-the-paper tests: CSR both ways, years, texts. */
import { InMemoryTexts, type ArticleText } from '../../src/corpus/article.ts';

export interface TestGraph {
  size: number;
  years: Uint16Array;
  outOffsets: Uint32Array;
  outTargets: Uint32Array;
  inOffsets: Uint32Array;
  inSources: Uint32Array;
}

/** edges: [citing, cited] pairs; out-lists keep the given order (the reference order navigation reads). */
export function graphOf(size: number, edges: [number, number][], years?: number[]): TestGraph {
  const csr = (key: 0 | 1) => {
    const offsets = new Uint32Array(size + 1);
    for (const e of edges) offsets[e[key] + 1]++;
    for (let i = 0; i < size; i++) offsets[i + 1] += offsets[i];
    const at = offsets.slice(0, size);
    const targets = new Uint32Array(edges.length);
    for (const e of edges) targets[at[e[key]]++] = e[1 - key];
    return { offsets, targets };
  };
  const out = csr(0);
  const inn = csr(1);
  return {
    size, years: Uint16Array.from(years ?? Array(size).fill(2010)),
    outOffsets: out.offsets, outTargets: out.targets, inOffsets: inn.offsets, inSources: inn.targets,
  };
}

const WORDS = ['neural', 'citation', 'graph', 'retrieval', 'protein', 'folding', 'quantum', 'error', 'correction', 'language', 'model', 'transformer', 'galaxy', 'survey', 'catalog', 'enzyme', 'kinetics', 'market', 'volatility', 'policy'];

/** Deterministic pseudo-random texts of the test vocabulary (a few words repeated, so tf > 1 occurs). */
export function textsOf(size: number, seed = 1): InMemoryTexts {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const items: ArticleText[] = [];
  for (let i = 0; i < size; i++) {
    const w = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
    items.push({ title: w(3 + Math.floor(next() * 3)), abstract: w(8 + Math.floor(next() * 12)) });
  }
  return new InMemoryTexts(items);
}

/** Random citation edges from later to earlier indices (i cites j < i), with years rising with the index. */
export function randomGraph(size: number, perArticle: number, seed = 2): { graph: TestGraph; edges: [number, number][] } {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const edges: [number, number][] = [];
  for (let i = 1; i < size; i++) {
    const seen = new Set<number>();
    for (let k = 0; k < perArticle; k++) {
      const j = Math.floor(next() * i);
      if (!seen.has(j)) {
        seen.add(j);
        edges.push([i, j]);
      }
    }
  }
  const years = Array.from({ length: size }, (_, i) => 2000 + Math.floor((20 * i) / size));
  return { graph: graphOf(size, edges, years), edges };
}
