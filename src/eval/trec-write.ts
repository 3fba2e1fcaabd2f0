/** Writers of TREC runs and qrels (atomic, latin1 bytes as the readers read them). */
import { writeFileAtomic } from '../util/atomic.ts';
import { float32Text } from './trec-numbers.ts';
import type { QrelsCsr, RunCsr } from './types.ts';

/** One ranked list per query for writing. */
export interface RunToWrite {
  qids: string[];
  docnos: (doc: number) => string;
  run: RunCsr;
  tag: string;
}

/**
 * Write a TREC run: per query (in the given query order) docs best first — by score descending, ties by docno
 * descending, as trec_eval will rank them — with ranks 1..n. Float32 scores are written with the fewest digits
 * that read back to the same float32.
 */
export function writeRun(path: string, r: RunToWrite): void {
  const parts: string[] = [];
  const { offsets, docs, scores } = r.run;
  const f32 = scores instanceof Float32Array;
  for (let q = 0; q < r.qids.length; q++) {
    const idx: number[] = [];
    for (let i = offsets[q]; i < offsets[q + 1]; i++) idx.push(i);
    const names = new Map<number, string>();
    for (const i of idx) names.set(i, r.docnos(docs[i]));
    idx.sort((a, b) => scores[b] - scores[a] || (names.get(b)! < names.get(a)! ? -1 : names.get(b)! > names.get(a)! ? 1 : 0));
    let rank = 1;
    for (const i of idx) parts.push(`${r.qids[q]} Q0 ${names.get(i)} ${rank++} ${f32 ? float32Text(scores[i]) : String(scores[i])} ${r.tag}\n`);
  }
  writeFileAtomic(path, Buffer.from(parts.join(''), 'latin1'));
}

/** Write qrels lines `qid 0 docno label`, queries in the given order, docs as stored. */
export function writeQrels(path: string, qids: string[], docnos: (doc: number) => string, qrels: QrelsCsr): void {
  const parts: string[] = [];
  for (let q = 0; q < qids.length; q++) {
    for (let i = qrels.offsets[q]; i < qrels.offsets[q + 1]; i++) parts.push(`${qids[q]} 0 ${docnos(qrels.docs[i])} ${qrels.labels[i]}\n`);
  }
  writeFileAtomic(path, Buffer.from(parts.join(''), 'latin1'));
}
