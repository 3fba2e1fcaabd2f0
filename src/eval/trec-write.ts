/** Writers of TREC runs and qrels (atomic, latin1 bytes as the readers read them). */
import { writeFileAtomic, writeFileAtomicWith } from '../util/atomic.ts';
import { float32Text } from './trec-numbers.ts';
import type { QrelsCsr, RunCsr } from './types.ts';

/** One ranked list per query for writing. */
interface RunToWrite {
  qids: string[];
  docnos: (doc: number) => string;
  run: RunCsr;
  tag: string;
  /**
   * Keep each list in the order given instead of trec_eval's (fusion writes ranx's order, whose ties are not
   * docno-ordered); trec_eval reads the file the same either way, as it ignores the rank column.
   */
  keepOrder?: boolean;
}

/**
 * Write a TREC run: per query (in the given query order) docs best first — by score descending, ties by docno
 * descending, as trec_eval will rank them — with ranks 1..n. Float32 scores are written with the fewest digits
 * that read back to the same float32, float64 ones with the fewest that read back to the same double.
 */
export function writeRun(path: string, r: RunToWrite): void {
  const { offsets, docs, scores } = r.run;
  const f32 = scores instanceof Float32Array;
  const tail = ` ${r.tag}\n`;
  writeFileAtomicWith(path, (write) => {
    // Lines go straight into a byte buffer (no string per line, no joined copy of the file).
    const out = new Latin1Buffer(write);
    for (let q = 0; q < r.qids.length; q++) {
      const start = offsets[q];
      const n = offsets[q + 1] - start;
      const names = new Array<string>(n);
      for (let i = 0; i < n; i++) names[i] = r.docnos(docs[start + i]);
      const order = (a: number, b: number) => scores[start + b] - scores[start + a] || (names[b] < names[a] ? -1 : names[b] > names[a] ? 1 : 0);
      const idx = Array.from({ length: n }, (_, i) => i);
      // Retrievers hand their lists over best first: sort only a list that is not in that order already.
      let sorted = true;
      for (let i = 1; i < n && sorted && !r.keepOrder; i++) sorted = order(i - 1, i) <= 0;
      if (!sorted) idx.sort(order);
      const head = `${r.qids[q]} Q0 `;
      for (let k = 0; k < n; k++) {
        const i = idx[k];
        out.put(head);
        out.put(names[i]);
        out.put(` ${k + 1} ${f32 ? float32Text(scores[start + i]) : String(scores[start + i])}`);
        out.put(tail);
      }
    }
    out.flush();
  });
}

/** Strings written as latin1 bytes (one per char, as the readers decode) through a 1 MiB buffer. */
class Latin1Buffer {
  private readonly buf = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  constructor(private readonly write: (chunk: Uint8Array) => void) {}
  put(s: string): void {
    if (this.used + s.length > this.buf.length) {
      this.flush();
      if (s.length > this.buf.length) return this.write(Buffer.from(s, 'latin1'));
    }
    const n = s.length;
    if (n > 48) {
      this.used += this.buf.write(s, this.used, 'latin1');
      return;
    }
    // A line's pieces are short: copied here, not through a call into the runtime each (a third of writing
    // a run's time). A char code stored into a byte keeps its low 8 bits, as latin1 encoding does.
    const b = this.buf;
    let u = this.used;
    for (let i = 0; i < n; i++) b[u++] = s.charCodeAt(i);
    this.used = u;
  }
  flush(): void {
    if (this.used > 0) this.write(this.buf.subarray(0, this.used));
    this.used = 0;
  }
}

/** Write qrels lines `qid 0 docno label`, queries in the given order, docs as stored. */
export function writeQrels(path: string, qids: string[], docnos: (doc: number) => string, qrels: QrelsCsr): void {
  const parts: string[] = [];
  for (let q = 0; q < qids.length; q++) {
    for (let i = qrels.offsets[q]; i < qrels.offsets[q + 1]; i++) parts.push(`${qids[q]} 0 ${docnos(qrels.docs[i])} ${qrels.labels[i]}\n`);
  }
  writeFileAtomic(path, Buffer.from(parts.join(''), 'latin1'));
}
