/**
 * The ranking every BM25 search ends in: score descending, ties by a tie key descending — with the corpus
 * store's idOrder that is trec_eval's order (equal scores: docno descending), so evaluation sees exactly our
 * ranking. Default tie key: the document number. Kept as a size-k min-heap whose root is the worst document kept;
 * the compiled kernel keeps the same heap.
 */
import type { TopK } from './scoring-arrays.ts';

export class TopKHeap {
  private k = 0;
  private size = 0;
  private docs = new Uint32Array(0);
  private scores = new Float32Array(0);
  private readonly f32 = new Float32Array(1);
  private readonly u32 = new Uint32Array(this.f32.buffer);

  /** @param tieKey per document, higher first among equal scores; null = the document number. */
  constructor(private readonly tieKey: Uint32Array | null) {}

  /** Empty the heap for a search of the top `k`. */
  reset(k: number): void {
    this.k = k;
    this.size = 0;
    if (this.docs.length < k) {
      this.docs = new Uint32Array(k);
      this.scores = new Float32Array(k);
    }
  }

  /** Sums ≤ this cannot enter the heap: 0 until it is full, then the float just below its minimum score. */
  floor(): number {
    if (this.k === 0) return Infinity;
    if (this.size < this.k) return 0;
    const min = this.scores[0];
    if (!(min > 0)) return -Infinity; // (not reached with positive BM25 scores) let the heap decide
    this.f32[0] = min;
    this.u32[0]--;
    return this.f32[0];
  }

  /** Keep document `d` with float score `s` if it ranks among the k best so far. */
  offer(s: number, d: number): void {
    const hd = this.docs;
    const hs = this.scores;
    if (this.size < this.k) {
      let j = this.size++;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (!this.worse(s, d, hs[parent], hd[parent])) break;
        hd[j] = hd[parent];
        hs[j] = hs[parent];
        j = parent;
      }
      hd[j] = d;
      hs[j] = s;
    } else if (this.k > 0 && this.worse(hs[0], hd[0], s, d)) {
      this.siftDown(s, d);
    }
  }

  /** Empty the heap, best first. */
  drain(): TopK {
    const n = this.size;
    const docsOut = new Uint32Array(n);
    const scoresOut = new Float32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      docsOut[i] = this.docs[0];
      scoresOut[i] = this.scores[0];
      this.size--;
      if (this.size > 0) this.siftDown(this.scores[this.size], this.docs[this.size]);
    }
    return { docs: docsOut, scores: scoresOut };
  }

  private worse(sx: number, dx: number, sy: number, dy: number): boolean {
    if (sx !== sy) return sx < sy;
    const key = this.tieKey;
    return key === null ? dx < dy : key[dx] < key[dy];
  }

  /** Put (s, d) at the root and restore the heap. */
  private siftDown(s: number, d: number): void {
    const hd = this.docs;
    const hs = this.scores;
    const size = this.size;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && this.worse(hs[c + 1], hd[c + 1], hs[c], hd[c])) c++;
      if (!this.worse(hs[c], hd[c], s, d)) break;
      hd[i] = hd[c];
      hs[i] = hs[c];
      i = c;
    }
    hd[i] = d;
    hs[i] = s;
  }
}
