/**
 * `citebench embeddings export`: a store's vectors back out as NumPy `X.npy` (float32, (n, d), C order; version
 * 1.0, what `np.load` reads) and `X.ids.txt` (the paper id of each row, one a line), rows in corpus order. Both
 * files are written atomically, chunk by chunk (never the whole matrix in memory); `embeddings import X.npy`
 * reads the pair back.
 */
import { CitebenchError } from '../../../util/errors.ts';
import { writeFileAtomic, writeFileAtomicWith } from '../../../util/atomic.ts';
import type { EmbeddingStore } from '../store.ts';
import { npyHeaderF32 } from './npy.ts';
import { defaultIdsPath } from './vector-file.ts';

export interface ExportOutcome {
  npy: string;
  ids: string;
  rows: number;
  dim: number;
}

export function exportEmbeddings(store: EmbeddingStore, paperId: (index: number) => string, out: string): ExportOutcome {
  if (!/\.npy$/i.test(out)) throw new CitebenchError(`--out ${out}: name the .npy file to write (X.npy; the ids go to X.ids.txt)`);
  const m = store.manifest;
  if (m.kind !== 'single') throw new CitebenchError(`${store.dir}: ${m.model} stores several vectors per article (sentence vectors); a (n, d) .npy holds one per article`);
  const chunks = store.chunks().map((c) => ({ c, indices: store.chunkIndices(c)! }));
  const rows = chunks.reduce((a, x) => a + x.indices.length, 0);
  if (rows === 0) throw new CitebenchError(`${store.dir}: the store holds no vectors`);
  const ids: string[] = [];
  for (const x of chunks) for (const i of x.indices) ids.push(paperId(i));
  const idsPath = defaultIdsPath(out);
  writeFileAtomic(idsPath, ids.join('\n') + '\n');
  writeFileAtomicWith(out, (write) => {
    write(npyHeaderF32(rows, m.dim));
    for (const x of chunks) {
      const v = store.load(x.indices).vectors;
      write(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    }
  });
  return { npy: out, ids: idsPath, rows, dim: m.dim };
}
