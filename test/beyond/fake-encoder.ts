/** An embedding store filled by a deterministic fake encoder (vector = function of the text), no model needed. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArticleText, TextSource } from '../../src/corpus/article.ts';
import type { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { EmbeddingStore } from '../../src/retrieval/dense/store.ts';

export const DIM = 6;

export function fakeVector(a: ArticleText): Float32Array {
  const v = new Float32Array(DIM);
  const s = `${a.title} ${a.abstract}`;
  for (let i = 0; i < s.length; i++) v[(s.charCodeAt(i) * 7 + i) % DIM] += ((s.charCodeAt(i) % 13) - 6) / 10;
  return v;
}

export async function fakeStore(texts: TextSource): Promise<{ store: EmbeddingStore; encoder: Encoder }> {
  const encode = async (arts: ArticleText[]) => {
    const vectors = new Float32Array(arts.length * DIM);
    arts.forEach((a, i) => vectors.set(fakeVector(a), i * DIM));
    return { dim: DIM, offsets: Uint32Array.from({ length: arts.length + 1 }, (_, i) => i), vectors };
  };
  // One role only (no prompts): both roles encode alike, into the one store.
  const encoder = {
    model: { fingerprint: 'fake-fp', roleFingerprint: { query: 'fake-fp', document: 'fake-fp' } },
    encode,
    forRole: () => ({ fingerprint: 'fake-fp', label: 'encode fake', encode }),
  } as unknown as Encoder;
  const store = EmbeddingStore.openOrCreate(join(mkdtempSync(join(tmpdir(), 'cb-fake-emb-')), 'emb'), {
    model: 'fake', fingerprint: 'fake-fp', dim: DIM, dtype: 'float32', kind: 'single', chunkSize: 64, corpusSize: texts.size,
  });
  return { store, encoder };
}
