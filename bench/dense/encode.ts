/**
 * Encoding throughput: citebench's encoder (transformers.js tokenizer + onnxruntime-node session, 2 threads)
 * on real titles/abstracts (../shared scirepeval sample) with ../shared/models/scibert-base-random (int8,
 * BERT-base shape). Writes the exact batches it ran (token ids) and the [CLS] vectors to bench/out/dense/ so
 * the Python onnxruntime peer (encode_peer.py) runs the same model on the same inputs and checks parity.
 * usage: node --import tsx bench/dense/encode.ts [N_ARTICLES=160] [BATCH=16]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { peakRssMiB } from './vectors.ts';

const OUT = new URL('../out/dense/', import.meta.url).pathname;
mkdirSync(OUT, { recursive: true });
const n = Number(process.argv[2] ?? 160);
const batch = Number(process.argv[3] ?? 16);
const shared = new URL('../../../shared/', import.meta.url).pathname;
const fos = JSON.parse(readFileSync(`${shared}data/scirepeval-sample/fos_small.json`, 'utf8')) as { title: string; abstract: string }[];
const arts = fos.filter((r) => r.abstract).slice(0, n).map((r) => ({ title: r.title ?? '', abstract: r.abstract ?? '' }));
const model = resolveModel(`${shared}models/scibert-base-random`, { quantized: true });
const enc = await Encoder.load(model, { batchSize: batch, threads: 2 });
const toks = arts.map((a) => enc.tokenize(a));
const tokens = toks.reduce((s, t) => s + t.ids.length, 0);
// The batches exactly as Encoder forms them (length-sorted, ties by input order).
const order = toks.map((_, i) => i).sort((a, b) => toks[b].ids.length - toks[a].ids.length || a - b);
const batches: number[][][] = [];
for (let b = 0; b < order.length; b += batch) batches.push(order.slice(b, b + batch).map((i) => Array.from(toks[i].ids)));
writeFileSync(`${OUT}encode-batches.json`, JSON.stringify({ order, batches }));
await enc.encodeTokenized(toks.slice(0, 4)); // warm-up
const t0 = performance.now();
const r = await enc.encodeTokenized(toks);
const s = (performance.now() - t0) / 1000;
writeFileSync(`${OUT}encode-node.f32`, r.vectors);
const line = JSON.stringify({
  what: 'citebench encode (tokenised; forward + [CLS] pooling), scibert-base-random int8, 2 threads',
  articles: arts.length, batch, meanTokens: tokens / arts.length, seconds: s, articlesPerSecond: arts.length / s,
  tokensPerSecond: tokens / s, peakRssMiB: Math.round(peakRssMiB()),
});
console.log(line);
writeFileSync(`${OUT}results.jsonl`, line + '\n', { flag: 'a' });
// Tokenisation cost on its own (JS WordPiece), for completeness.
const t1 = performance.now();
for (const a of arts) enc.tokenize(a);
console.log(JSON.stringify({ what: 'tokenisation only', articles: arts.length, seconds: (performance.now() - t1) / 1000 }));
