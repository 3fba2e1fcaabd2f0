import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, num, required } from '../args.ts';
import { formatMdcrTable, type MdcrBenchmark } from '../../eval/mdcr.ts';
import { mdcrDataWarning, mdcrPairs, mdcrScoresText, readMdcrData, type MdcrData, type MdcrPairs } from '../../eval/mdcr-data.ts';
import { experiment } from '../../experiments/experiment.ts';
import { stringify } from 'yaml';
import { loadModels, parseModelsOnly } from '../../experiments/config.ts';
import { kindNamed, type ModelConfig } from '../../experiments/kinds/index.ts';
import { mdcrModel } from '../../experiments/mdcr-models.ts';
import { Encoder } from '../../retrieval/dense/encoder.ts';
import { importEmbeddings, importFingerprint } from '../../retrieval/dense/import/import.ts';
import { DenseRetriever } from '../../retrieval/dense/retriever.ts';
import { encodeRoles, openModelStores, vectorStoreDir } from '../../retrieval/dense/role-stores.ts';
import { sortedUnique } from '../../util/sorted.ts';
import type { Retriever } from '../../retrieval/retriever.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { readJsonFile } from '../../util/json.ts';
import { modelLabel, modelOptionSpec, modelOptionsUsage, resolveFromValues } from './dense-common.ts';

export const usage = `usage: citebench mdcr score --benchmark MDCR.json --data MDCR_DATA.jsonl --model bm25|NAME|DIR --out SCORES.json
                          [--k1 0.9] [--b 0.4] [--accurate] [--batch 16] [--threads N] [--cache DIR] [--eval] [model options]
       citebench mdcr score --benchmark MDCR.json --data MDCR_DATA.jsonl --embeddings FILE --distance l2|ip
                          --out SCORES.json [--ids IDS] [--strict] [--cache DIR] [--eval]
       citebench mdcr score --benchmark MDCR.json --data MDCR_DATA.jsonl --config FILE --model NAME --out SCORES.json
                          [--threads N] [--cache DIR] [--models-dir DIR] [--eval]

Score every query–candidate pair of an MDCR benchmark (the official takelab files or \`citebench mdcr build\`
output; no corpus store needed) and write the official scores file { "<qid>_<cid>": score } (float32 values,
keys in byte order), scored as \`citebench run\`'s MDCR stage scores them. Evaluate the file with
\`citebench mdcr-eval --benchmark MDCR.json --scores SCORES.json\` (paper Table 3;
\`citebench mdcr-eval … --candidate-type T\` for Table 4), or add --eval to print Table 3's numbers directly
(a query lacking some candidate type's list counts it as empty there; mdcr-eval, like evaluate.py, stops on it).

  --model bm25     Lucene-exact BM25 (title + abstract); collection statistics are those of all papers of the
                   data file (the fixed candidate set), --k1/--b as in bm25 search (default 0.9 / 0.4),
                   --accurate: Lucene's exact document lengths instead of its one-byte norms (the bm25 kind's
                   model, its flags its config keys: as --config with \`bm25: {k1, b, accurate}\`)
  --config FILE --model NAME
                   the model NAME of a config's \`models:\` (a run's config will do; other keys are not read),
                   of any kind — bm25, dense, embeddings, rerank, fusion, … — built by its kind on the data
                   file's papers, after the models it names (a re-ranker's first stage and scorers, a fusion's
                   inputs); its needs prepared there (a BM25 index of the papers, their vectors). A kind that
                   needs the citation graph (navigation, profiler) or a model that tunes is an error.
                   --cache DIR keeps encoded papers under DIR/mdcr-<12 hex of the data file's SHA-256>
  --model NAME|DIR a dense encoder: the data file's papers are encoded and each pair is scored by the model's
                   distance (−squared L2 or inner product; ASPIRE: the best sentence pair)
  --embeddings FILE  vectors computed elsewhere for the data file's paper ids (SciRepEval JSONL, .npy or
                   .safetensors with --ids, default X.ids.txt; docs/dense.md): each pair scored by --distance
                   (required). A query without a vector is an error; a candidate without one ranks last (the
                   lowest float32) and is counted, --strict: an error
  --cache DIR      dense: keep the encoded papers under DIR, keyed by the data file's SHA-256 and the model's
                   fingerprint, so scoring the same file with the same model again encodes nothing
  --batch N        dense: articles per forward pass (default 16)
  --threads N      dense, --config: onnxruntime threads (default: all cores)

${modelOptionsUsage}`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    ...modelOptionSpec,
    benchmark: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' }, k1: { type: 'string' }, b: { type: 'string' },
    accurate: { type: 'boolean' }, batch: { type: 'string' }, threads: { type: 'string' }, cache: { type: 'string' }, eval: { type: 'boolean' },
    embeddings: { type: 'string' }, ids: { type: 'string' }, strict: { type: 'boolean' }, config: { type: 'string' },
  }, usage);
  const benchmarkPath = required('benchmark', values.benchmark);
  const dataPath = required('data', values.data);
  const out = required('out', values.out);
  if (values.embeddings && values.model) throw new CitebenchError('give --model or --embeddings, not both');
  if (values.config && values.embeddings) throw new CitebenchError('--config scores a model it configures (--model NAME); --embeddings is one without a config');
  if (values.config) for (const f of [...KIND_FLAGS, 'batch'] as const) if (values[f] !== undefined) throw new CitebenchError(`--${f} is a flag of a model without --config; set it in ${values.config}`);
  const model = values.embeddings ?? required('model', values.model);
  const benchmark = readJsonFile(benchmarkPath) as MdcrBenchmark;
  const data = readMdcrData(dataPath);
  const warning = mdcrDataWarning(dataPath, data);
  if (warning) console.error(warning);
  const pairs = mdcrPairs(benchmark, data, { benchmark: benchmarkPath, data: dataPath });
  const nPairs = pairs.candidates.reduce((s, c) => s + c.length, 0);
  const t0 = performance.now();
  const threads = values.threads === undefined ? undefined : num('threads', values.threads);
  // The data file is the corpus: its papers are the documents (positions in the file), their ids the file's.
  const scratch = values.cache ? undefined : mkdtempSync(join(tmpdir(), 'citebench-mdcr-'));
  const storeDir = (key: string) => (values.cache ? vectorStoreDir(values.cache as string, modelLabel(model), key, data.sha256) : scratch!);
  const scorer = await mdcrScorer(values, data, pairs, model, threads, storeDir);
  try {
    const name = 'scores';
    const r = await experiment({
      docs: { id: (i) => data.ids[i], idOrder: (a, b) => a - b }, topics: pairs.queries, candidates: pairs.candidates, excludeSelf: false,
      k: Math.max(1, ...pairs.candidates.map((c) => c.length)), retrievers: [{ name, retriever: scorer.retriever }],
      // Scores are written whatever the benchmark lacks; --eval prints all types together, a missing list as empty.
      mdcr: { benchmark, types: [], benchmarkPath, lenient: true },
    });
    if (scorer.unscored?.()) console.error(`citebench: ${scorer.unscored()} candidate(s) have no vector in ${values.embeddings} and rank last; --strict makes this an error`);
    writeFileAtomic(out, mdcrScoresText(Array.from(pairs.queries, (q) => data.ids[q]), (d) => data.ids[d], r.lists.get(name)!));
    const secs = (performance.now() - t0) / 1000;
    console.log(`${out}: ${nPairs} query–candidate pairs of ${pairs.queries.length} queries scored with ${model} (${secs.toFixed(1)} s)`);
    if (values.eval) process.stdout.write(formatMdcrTable(r.cells[0].mdcr!.all));
  } finally {
    await scorer.release();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

type Values = Record<string, string | boolean | string[] | undefined>;

/** The flags a model named like a kind takes as its YAML node's keys (`--model bm25 --k1 1.2 --accurate`). */
const KIND_FLAGS = ['k1', 'b', 'accurate'] as const;

/**
 * `--model NAME` where the registry names a kind NAME (`bm25`): a config of that one model, its node the kind
 * flags given (checked by the kind's entry: errors name the flag); undefined for a model folder or registry name
 * (an encoder).
 */
function flagModels(values: Values, model: string): { models: ModelConfig[]; modelsDir?: string; source: string } | undefined {
  if (kindNamed(model) === undefined) return undefined;
  const node: Record<string, unknown> = {};
  for (const f of KIND_FLAGS) {
    const v = values[f];
    if (v === undefined) continue;
    node[f] = typeof v === 'boolean' ? v : num(f, v as string);
  }
  const source = `--model ${model}`;
  try {
    return { ...parseModelsOnly(stringify({ models: { [model]: node } }), source), source };
  } catch (e) {
    // `models.bm25.k1: must be a number ≥ 0, got -1` said of the flag it came from.
    const m = e instanceof InputError && /^models\.[^.]+\.(\w+)$/.exec(e.field ?? '');
    if (m) throw new CitebenchError(`--${m[1]} ${(e as InputError).problem}`);
    throw e;
  }
}

/**
 * The retriever that scores the pairs, over the data file's papers: a model built by its kind's entry (a
 * config's, or `--model bm25`: BM25 over an index of them, collection statistics of the whole file: "BM25 over
 * the fixed candidate set"); an encoder whose vectors of the used papers go into an embedding store (under
 * --cache, keyed by the file's SHA-256 and the model's fingerprint; all in one chunk, so the bytes do not depend
 * on the file's size); or vectors imported from a file for the file's paper ids (with its own messages for
 * missing vectors). The last two name no kind: they are flags for an encoder and a vectors file.
 */
async function mdcrScorer(values: Values, data: MdcrData, pairs: MdcrPairs, model: string, threads: number | undefined, storeDir: (key: string) => string): Promise<{ retriever: Retriever; release(): Promise<void>; unscored?: () => number }> {
  if (values.embeddings) {
    const distance = values.distance;
    if (distance !== 'l2' && distance !== 'ip') throw new CitebenchError(`--embeddings needs --distance l2 or ip (the distance the vectors were made for), got ${distance === undefined ? 'none' : `'${distance}'`}`);
    const file = values.embeddings as string;
    const corpus = { size: data.ids.length, indexOf: (id: string) => data.indexOf.get(id) ?? -1 };
    const { store } = await importEmbeddings(file, corpus, { ids: values.ids as string | undefined, dir: storeDir(importFingerprint(file, values.ids as string | undefined)), corpusKey: data.sha256, distance });
    const retriever = new DenseRetriever({ name: 'imported', store, distance, threads, imported: { file, strict: values.strict === true, paperId: (i) => data.ids[i] } });
    return { retriever, release: async () => {}, unscored: () => retriever.lastSkipped };
  }
  // A configured model of any kind, or a model named like a kind (`bm25`) with the kind's parameters as flags:
  // built by its kind's entry on the data file's papers (experiments/mdcr-models.ts).
  const configured = values.config ? { ...loadModels(values.config as string), source: values.config as string } : flagModels(values, model);
  if (configured) {
    // Under --cache, the file's own folder: a kind keys its stores by model, the folder by the data file.
    const work = values.cache ? join(values.cache as string, `mdcr-${data.sha256.slice(0, 12)}`) : storeDir('');
    const m = await mdcrModel(configured.models, model, data, pairs, {
      source: configured.source, work, modelsDir: (values['models-dir'] as string | undefined) ?? configured.modelsDir, threads,
      allowRemote: values['allow-remote'] === true, log: (l) => console.error(l),
    });
    return { retriever: m.retriever, release: m.release };
  }
  const batch = num('batch', values.batch as string | undefined, 16);
  if (!Number.isInteger(batch) || batch < 1) throw new CitebenchError(`--batch must be a positive integer, got ${values.batch}`);
  const resolved = await resolveFromValues(values as Parameters<typeof resolveFromValues>[0]);
  const encoder = await Encoder.load(resolved, { batchSize: batch, threads });
  // The used papers, encoded in one chunk in data-file order, whatever the file's size: the queries in the query
  // role, the candidates in the document role (one store, and their union in one pass, where the prompts agree).
  const stores = openModelStores(storeDir(resolved.fingerprint), resolved, { corpusSize: data.ids.length, corpusKey: data.sha256, chunkSize: data.ids.length });
  const queries = sortedUnique(pairs.queries);
  const candidates = sortedUnique(pairs.candidates.flatMap((c) => Array.from(c)));
  await encodeRoles(stores, encoder, data.texts, queries, candidates);
  return { retriever: new DenseRetriever({ name: resolved.name, store: stores.document, queryStore: stores.query, distance: resolved.distance, threads }), release: () => encoder.release() };
}
