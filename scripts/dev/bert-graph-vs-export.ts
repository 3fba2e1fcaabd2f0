/**
 * citebench's converted graph against a transformers ONNX export of the same weights (development only):
 *   python scripts/dev/onnx-to-safetensors.py ../shared/models/tiny-scibert-random SCRATCH/tiny-ckpt
 *   node --import tsx scripts/dev/bert-graph-vs-export.ts SCRATCH/tiny-ckpt [../shared/models/tiny-scibert-random]
 * Float32 and int8 (citebench's quantization vs the export's onnxruntime quantize_dynamic) are compared.
 * Encodes the S2ORC sample's articles with an abstract through both graphs with citebench's Encoder (same tokenizer,
 * batches and pooling): CLS vectors and ASPIRE all-layer sentence vectors; prints max |Δ| and whether an exact
 * −L2² search (every article as a query over all others) ranks identically.
 */
import { readFileSync } from 'node:fs';
import { convertCheckpoint } from '../../src/retrieval/dense/convert.ts';
import { Encoder, type EncodedBatch } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel, type Pooling } from '../../src/retrieval/dense/models.ts';

const ckpt = process.argv[2];
if (!ckpt) throw new Error('usage: bert-graph-vs-export.ts CHECKPOINT_DIR [EXPORTED_MODEL_DIR]');
const exported = process.argv[3] ?? new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const sample = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;
const articles = readFileSync(sample, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { title?: string; abstract?: string })
  .filter((r) => r.abstract)
  .map((r) => ({ title: r.title ?? '', abstract: r.abstract! }));
const converted = { fp32: convertCheckpoint(ckpt, { log: (l) => console.error(l) }), int8: convertCheckpoint(ckpt, { quantize: true, log: (l) => console.error(l) }) };

function ranking(b: EncodedBatch, q: number): number[] {
  const n = b.vectors.length / b.dim;
  const score = (i: number) => {
    let s = 0;
    for (let k = 0; k < b.dim; k++) s += (b.vectors[i * b.dim + k]! - b.vectors[q * b.dim + k]!) ** 2;
    return -s;
  };
  return Array.from({ length: n }, (_, i) => i)
    .filter((i) => i !== q)
    .map((i) => ({ i, s: score(i) }))
    .sort((a, c) => c.s - a.s || a.i - c.i)
    .map((h) => h.i);
}

for (const [weights, pooling] of [['fp32', 'cls'], ['fp32', 'aspire'], ['int8', 'cls'], ['int8', 'aspire']] as ['fp32' | 'int8', Pooling][]) {
  const base = resolveModel(exported, { overrides: { pooling, layers: 'all' }, quantized: weights === 'int8' });
  const ours = await Encoder.load({ ...base, onnxFile: converted[weights] }, { threads: 2 });
  const theirs = await Encoder.load(base, { threads: 2 });
  const a = await ours.encode(articles);
  const b = await theirs.encode(articles);
  let maxDelta = 0;
  for (let i = 0; i < a.vectors.length; i++) maxDelta = Math.max(maxDelta, Math.abs(a.vectors[i]! - b.vectors[i]!));
  const n = a.vectors.length / a.dim;
  let same = 0;
  let sameTop10 = 0;
  for (let q = 0; q < n; q++) {
    const [ra, rb] = [ranking(a, q), ranking(b, q)];
    if (ra.join() === rb.join()) same++;
    if (ra.slice(0, 10).join() === rb.slice(0, 10).join()) sameTop10++;
  }
  console.log(JSON.stringify({ weights, exported: base.onnxFile.split('/').pop(), pooling, layers: pooling === 'aspire' ? 'all' : 'last', articles: articles.length, vectors: n, maxAbsDelta: maxDelta, queriesWithIdenticalRanking: `${same}/${n}`, queriesWithIdenticalTop10: `${sameTop10}/${n}` }));
}
