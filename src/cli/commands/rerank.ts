import { existsSync } from 'node:fs';
import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { lineNumbersOf } from '../../eval/line-scan.ts';
import { readRankedRun } from '../../eval/trec-run.ts';
import { writeRun } from '../../eval/trec-write.ts';
import { parseDevice } from '../../retrieval/dense/encoder.ts';
import { loadReranker } from '../../retrieval/rerank/load.ts';
import { rerankText } from '../../retrieval/rerank/pair-scorer.ts';
import { QueryJournal, removeJournal } from '../../retrieval/resumable.ts';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { sha256 } from '../../util/identity.ts';
import { Progress } from '../../util/progress.ts';

export const usage = `usage: citebench rerank --model NAME|DIR --corpus STORE --run RUN.trec --depth K --out RUN.trec
                      [--instruction TEXT] [--max-length N] [--batch N] [--models-dir DIR] [--quantized]
                      [--threads N] [--device cpu|cuda|auto] [--allow-remote] [--tag T]

Re-score each query's top K of a TREC run with a reranker and write the K re-ranked as a TREC run (qid Q0 docno
rank score tag; scores at full double precision; ties by docno descending, as trec_eval ranks them). The run's
qids and docnos are paper ids of the corpus store; the top K is taken in trec_eval's order (score descending,
ties by docno descending); entries below K are left out. A reranker reads an article as its title, a space and
its abstract, for the query article and the candidate alike (docs/rerank.md).

  --model NAME|DIR  a reranker: a registry name (ms-marco-minilm-l6-v2, bge-reranker-v2-m3,
                    gte-reranker-modernbert-base, qwen3-reranker-0.6b/4b/8b) looked up as <models-dir>/ORG--NAME/,
                    a hub id ORG/NAME, or a folder: a sequence-classification checkpoint (BERT, RoBERTa/XLM-R,
                    ModernBERT), a sentence-transformers CrossEncoder folder (its activation), an ONNX
                    sequence-classification export, a causal-LM CrossEncoder folder (LogitScore) or a bare
                    *ForCausalLM folder scored by the Qwen3-Reranker recipe
  --depth K         candidates re-scored per query (a positive integer)
  --instruction T   causal-LM rerankers: the task instruction (default: docs/rerank.md)
  --max-length N    tokens of a (query, candidate) input, over the folder's
  --batch N         pairs per forward pass (default 16)
  --quantized       int8 weights (converted from the checkpoint like the encoders)
  --models-dir DIR  where named models live (default: $CITEBENCH_MODELS or ./models)
  --allow-remote    download a registry model missing from <models-dir> from the Hugging Face hub (pinned)
Finished queries are journalled in OUT.partial: a killed re-ranking, run again with the same arguments,
re-scores only the queries it had not finished.`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    model: { type: 'string' }, corpus: { type: 'string' }, run: { type: 'string' }, depth: { type: 'string' }, out: { type: 'string' },
    instruction: { type: 'string' }, 'max-length': { type: 'string' }, batch: { type: 'string' }, 'models-dir': { type: 'string' },
    quantized: { type: 'boolean' }, threads: { type: 'string' }, device: { type: 'string' }, 'allow-remote': { type: 'boolean' }, tag: { type: 'string' },
  }, usage);
  const model = required('model', values.model);
  const runPath = required('run', values.run);
  const out = required('out', values.out);
  const depth = num('depth', required('depth', values.depth));
  if (!Number.isInteger(depth) || depth < 1) throw new CitebenchError(`--depth must be a positive integer, got ${values.depth}`);
  const batch = num('batch', values.batch, 16);
  if (!Number.isInteger(batch) || batch < 1) throw new CitebenchError(`--batch must be a positive integer, got ${values.batch}`);
  const maxLength = values['max-length'] === undefined ? undefined : num('max-length', values['max-length']);
  if (maxLength !== undefined && !(Number.isInteger(maxLength) && maxLength >= 8)) throw new CitebenchError(`--max-length must be an integer ≥ 8, got ${values['max-length']}`);
  const threads = values.threads === undefined ? undefined : num('threads', values.threads);
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) throw new CitebenchError(`--threads must be a positive integer, got ${values.threads}`);
  const device = parseDevice(values.device);
  const corpus = required('corpus', values.corpus);
  if (!existsSync(runPath)) throw new CitebenchError(`--run ${runPath}: no such file`);
  const store = CorpusStore.open(corpus);

  // The top K of every query, located in the store; a paper the store lacks is an error naming its line.
  const ranked = readRankedRun(runPath);
  const qids = [...ranked.lists.keys()];
  const queries = new Uint32Array(qids.length);
  const lists: Uint32Array[] = [];
  const missing = (entry: number, field: string, what: string) => {
    throw new InputError(runPath, lineNumbersOf(runPath, [entry])[0], field, `${what} is not a paper of the corpus store ${corpus}`);
  };
  qids.forEach((qid, q) => {
    const entries = ranked.lists.get(qid)!.slice(0, depth);
    const qi = store.indexOf(qid);
    if (qi < 0) missing(entries[0].entry, 'qid', `query ${qid}`);
    queries[q] = qi;
    lists.push(Uint32Array.from(entries, (e) => {
      const d = store.indexOf(e.docno);
      if (d < 0) missing(e.entry, 'docno', `paper ${e.docno}`);
      return d;
    }));
  });

  const log = (l: string) => console.error(`citebench: ${l}`);
  const scorer = await loadReranker(model, {
    modelsDir: values['models-dir'], maxLength, instruction: values.instruction, batchSize: batch, threads, device,
    quantized: values.quantized === true, allowRemote: values['allow-remote'] === true, log,
  });
  const pairs = lists.reduce((s, l) => s + l.length, 0);
  log(`re-scoring ${pairs} pairs of ${qids.length} queries (top ${depth} of ${runPath}) with ${scorer.name}: ${scorer.describe}`);
  const journalPath = `${out}.partial`;
  const fingerprint = sha256().update(JSON.stringify({ scorer: scorer.fingerprint, queries: Array.from(queries), lists: lists.map((l) => Array.from(l)) })).hex();
  const journal = new QueryJournal(journalPath, fingerprint, qids.length, Float64Array);
  if (journal.done.size) log(`resuming: ${journal.done.size} of ${qids.length} queries re-scored already (${journalPath})`);
  const progress = new Progress({ label: 'rerank', total: pairs, unit: 'pairs' });
  progress.set(Array.from(journal.done.values()).reduce((s, e) => s + e.docs.length, 0));
  const t0 = performance.now();
  let scored = 0;
  try {
    // Queries in groups of about 4 batches, so a kill loses little and batches stay full.
    const todo = journal.todo();
    for (let i = 0; i < todo.length;) {
      const group: number[] = [];
      let n = 0;
      while (i < todo.length && (group.length === 0 || n + lists[todo[i]].length <= 4 * batch)) {
        n += lists[todo[i]].length;
        group.push(todo[i++]);
      }
      const texts = group.flatMap((q) => {
        const qt = rerankText(store.text(queries[q]));
        return Array.from(lists[q], (d) => [qt, rerankText(store.text(d))] as const);
      });
      const s = await scorer.scoreTexts(texts);
      let at = 0;
      for (const q of group) {
        journal.append(q, lists[q], s.slice(at, (at += lists[q].length)));
      }
      scored += n;
      progress.tick(n);
    }
  } catch (e) {
    journal.abandon();
    await scorer.release();
    throw e;
  }
  progress.finish();
  await scorer.release();
  const result = journal.close();
  writeRun(out, { qids, docnos: (d) => store.id(d), run: result, tag: values.tag ?? `rerank-${scorer.name}` });
  removeJournal(journalPath);
  const secs = (performance.now() - t0) / 1000;
  log(`${out}: ${qids.length} queries, ${pairs} pairs${scored < pairs ? ` (${scored} now)` : ''} in ${secs.toFixed(1)} s${scored ? ` (${(scored / secs).toFixed(1)} pairs/s)` : ''}`);
}
