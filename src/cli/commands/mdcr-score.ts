import { parse, num, required } from '../args.ts';
import { evaluateMdcr, formatMdcrTable, readJsonFile } from '../../eval/mdcr.ts';
import { mdcrDataWarning, mdcrPairs, mdcrScoresText, readMdcrData, scoreMdcrBm25, scoreMdcrDense, scoreMdcrImported } from '../../retrieval/mdcr-score.ts';
import { Encoder } from '../../retrieval/dense/encoder.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';
import { modelOptionSpec, modelOptionsUsage, resolveFromValues } from './dense-common.ts';

export const usage = `usage: citebench mdcr score --benchmark MDCR.json --data MDCR_DATA.jsonl --model bm25|NAME|DIR --out SCORES.json
                          [--k1 0.9] [--b 0.4] [--batch 16] [--threads N] [--cache DIR] [--eval] [model options]
       citebench mdcr score --benchmark MDCR.json --data MDCR_DATA.jsonl --embeddings FILE --distance l2|ip
                          --out SCORES.json [--ids IDS] [--strict] [--cache DIR] [--eval]

Score every query–candidate pair of an MDCR benchmark (the official takelab files or \`citebench mdcr build\`
output; no corpus store needed) and write the official scores file { "<qid>_<cid>": score } (float32 values,
keys in byte order). Evaluate it with \`citebench mdcr-eval --benchmark MDCR.json --scores SCORES.json\`
(paper Table 3; \`citebench mdcr-eval … --candidate-type T\` for Table 4), or add --eval to print Table 3's numbers directly.

  --model bm25     Lucene-exact BM25 (title + abstract); collection statistics are those of all papers of the
                   data file (the fixed candidate set), --k1/--b as in bm25 search (default 0.9 / 0.4)
  --model NAME|DIR a dense encoder: the data file's papers are encoded and each pair is scored by the model's
                   distance (−squared L2 or inner product; ASPIRE: the best sentence pair)
  --embeddings FILE  vectors computed elsewhere for the data file's paper ids (SciRepEval JSONL, .npy or
                   .safetensors with --ids, default X.ids.txt; docs/dense.md): each pair scored by --distance
                   (required). A query without a vector is an error; a candidate without one ranks last (the
                   lowest float32) and is counted, --strict: an error
  --cache DIR      dense: keep the encoded papers under DIR, keyed by the data file's SHA-256 and the model's
                   fingerprint, so scoring the same file with the same model again encodes nothing
  --batch N        dense: articles per forward pass (default 16)
  --threads N      dense: onnxruntime threads (default: all cores)

${modelOptionsUsage}`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    ...modelOptionSpec,
    benchmark: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' }, k1: { type: 'string' }, b: { type: 'string' },
    batch: { type: 'string' }, threads: { type: 'string' }, cache: { type: 'string' }, eval: { type: 'boolean' },
    embeddings: { type: 'string' }, ids: { type: 'string' }, strict: { type: 'boolean' },
  }, usage);
  const benchmarkPath = required('benchmark', values.benchmark);
  const dataPath = required('data', values.data);
  const out = required('out', values.out);
  if (values.embeddings && values.model) throw new CitebenchError('give --model or --embeddings, not both');
  const model = values.embeddings ?? required('model', values.model);
  const benchmark = readJsonFile(benchmarkPath);
  const data = readMdcrData(dataPath);
  const warning = mdcrDataWarning(dataPath, data);
  if (warning) console.error(warning);
  const pairs = mdcrPairs(benchmark, data, { benchmark: benchmarkPath, data: dataPath });
  const nPairs = pairs.candidates.reduce((s, c) => s + c.length, 0);
  const t0 = performance.now();
  let scores;
  if (values.embeddings) {
    const distance = values.distance;
    if (distance !== 'l2' && distance !== 'ip') throw new CitebenchError(`--embeddings needs --distance l2 or ip (the distance the vectors were made for), got ${distance === undefined ? 'none' : `'${distance}'`}`);
    const threads = values.threads === undefined ? undefined : num('threads', values.threads);
    const r = await scoreMdcrImported(data, pairs, values.embeddings, { ids: values.ids, distance, strict: values.strict ?? false, cacheDir: values.cache as string | undefined, threads });
    if (r.unscored) console.error(`citebench: ${r.unscored} candidate(s) have no vector in ${values.embeddings} and rank last; --strict makes this an error`);
    scores = r.scores;
  } else if (model === 'bm25') {
    const k1 = num('k1', values.k1, 0.9);
    const b = num('b', values.b, 0.4);
    if (k1 < 0) throw new CitebenchError(`--k1 must be ≥ 0, got ${k1}`);
    if (b < 0 || b > 1) throw new CitebenchError(`--b must be in [0, 1], got ${b}`);
    scores = await scoreMdcrBm25(data, pairs, { k1, b });
  } else {
    const batch = num('batch', values.batch, 16);
    if (!Number.isInteger(batch) || batch < 1) throw new CitebenchError(`--batch must be a positive integer, got ${values.batch}`);
    const threads = values.threads === undefined ? undefined : num('threads', values.threads);
    const resolved = await resolveFromValues(values);
    const encoder = await Encoder.load(resolved, { batchSize: batch, threads });
    try {
      scores = await scoreMdcrDense(data, pairs, encoder, resolved.distance, { cacheDir: values.cache as string | undefined, threads });
    } finally {
      await encoder.release();
    }
  }
  writeFileAtomic(out, mdcrScoresText(data, pairs, scores));
  const secs = (performance.now() - t0) / 1000;
  console.log(`${out}: ${nPairs} query–candidate pairs of ${pairs.queries.length} queries scored with ${model} (${secs.toFixed(1)} s)`);
  if (values.eval) {
    const result = evaluateMdcr(benchmark, readJsonFile(out), { benchmarkPath, scoresPath: out });
    process.stdout.write(formatMdcrTable(result));
  }
}
