import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { fieldAbbrev, parseSchemeField, schemeFieldHint } from '../../corpus/fields.ts';
import { checkModelName } from '../../sampling/mdcr-build.ts';
import { loadIndex, readIndexMeta } from '../../retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../../retrieval/bm25/retriever.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';
import { checkIndexMatchesStore } from './bm25-common.ts';
import { MDCR_SPLITS, buildMdcr, formatJaccard, mdcrListDepth, planMdcr, writeMdcr, type MdcrModelLists, type MdcrPlan } from '../../sampling/mdcr-plan.ts';
import type { MdcrSplit, RankedIds } from '../../sampling/mdcr-build.ts';
import { readRunLists } from '../../experiments/mdcr-stage.ts';
import type { Retriever } from '../../retrieval/retriever.ts';
import type { FieldName, FieldScheme } from '../../corpus/fields.ts';

export const usage = `usage: citebench mdcr build --corpus STORE --out DIR [--bm25-index INDEX] [--run NAME=PATH ...]
                          [--seed 1] [--queries-per-field 200] [--fields F,F,...] [--pool-size 100000]
                          [--query-year 2019] [--write-plan]

Build an MDCR benchmark (paper §4.1) from a corpus store: per field, test and val queries (disjoint, each
citing ≥ 5 store articles), each with 5 random cited articles ("true") and 10 negatives of every type:
model-based (10 of the model's top-200 uncited articles on the field-level pool, for the 3 models whose top
negatives overlap least — mean pairwise Jaccard), graph (neighbours of the cited articles, by citation overlap),
most_cited (the field's 200 most cited articles) and random (the whole store). Writes the official files
  DIR/mdcr_test.json, DIR/mdcr_test_data.jsonl, DIR/mdcr_val.json, DIR/mdcr_val_data.jsonl
and DIR/mdcr_build_report.json (Jaccard matrices, chosen models, shortfalls). Same arguments ⇒ same bytes.

  --bm25-index INDEX   BM25 index of STORE (citebench bm25 index): adds model 'bm25', searched here over each
                       split's field-level pools
  --run NAME=PATH      another model's ranked lists (TREC run, paper ids, ≥ 200 uncited results per query) over
                       the field-level pools; PATH may contain {split} (test, val) and {field} (abbreviation, e.g.
                       CS) for one file per split and field. Repeatable. Model names become candidate-type keys.
  --write-plan         only write the queries and pools (DIR/plan/{split}/{field}.queries.txt, .pool.txt) that
                       runs for --run must cover, and stop
  --queries-per-field  queries per field and split (default 200)
  --fields F,F,...     MAG names or abbreviations (default: all 19)
  --pool-size S        field-level pool size (default 100000; the whole field-cited set when smaller)
  --seed S             seed (default 1)
  --threads N          BM25 searchers (default: number of CPUs)
The files always carry the seven keys the official evaluate.py reads (bm25, graph, most_cited, random, scincl,
specter, true); a model-based one whose model was not given holds empty lists. Other models' keys are kept
(evaluate.py ignores them), and a benchmark of fewer than 19 fields cannot be read by evaluate.py: a note says
each, as does the build report. Without models, only graph, most_cited and random negatives are drawn.`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    corpus: { type: 'string' }, out: { type: 'string' }, 'bm25-index': { type: 'string' }, run: { type: 'string', multiple: true },
    seed: { type: 'string' }, 'queries-per-field': { type: 'string' }, fields: { type: 'string' }, 'pool-size': { type: 'string' },
    'query-year': { type: 'string' }, 'write-plan': { type: 'boolean' }, threads: { type: 'string' },
  }, usage);
  const store = CorpusStore.open(required('corpus', values.corpus));
  const out = required('out', values.out);
  const seed = num('seed', values.seed, 1);
  const perField = num('queries-per-field', values['queries-per-field'], 200);
  const poolSize = num('pool-size', values['pool-size'], 100_000);
  const queryYear = num('query-year', values['query-year'], 2019);
  const threads = num('threads', values.threads, availableParallelism());
  if (!Number.isInteger(perField) || perField < 1) throw new CitebenchError(`--queries-per-field must be a positive integer, got ${values['queries-per-field']}`);
  const fields = checkPlanFields(values.fields?.split(','), store.fieldScheme);
  const runs = (values.run ?? []).map((spec) => {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CitebenchError(`--run expects NAME=PATH, got '${spec}'`);
    const name = spec.slice(0, eq);
    checkModelName(name);
    return { name, path: spec.slice(eq + 1) };
  });
  const names = runs.map((r) => r.name);
  if (values['bm25-index']) names.unshift('bm25');
  if (new Set(names).size !== names.length) throw new CitebenchError(`model names repeat: ${names.join(', ')}`);

  const plan = planMdcr(store, { fields, queriesPerField: perField, poolSize, seed, queryYear });
  if (values['write-plan']) {
    const ids = (xs: Uint32Array) => Array.from(xs, (i) => store.id(i)).join('\n') + '\n';
    for (const split of MDCR_SPLITS) {
      for (const f of plan.fields) {
        writeFileAtomic(join(out, 'plan', split, `${fieldAbbrev(f)}.queries.txt`), ids(plan.queries[split].get(f)!));
        writeFileAtomic(join(out, 'plan', split, `${fieldAbbrev(f)}.pool.txt`), ids(plan.pools[split].get(f)!));
      }
    }
    console.log(`${join(out, 'plan')}: queries and pools of ${plan.fields.length} fields × test, val`);
    return;
  }
  const models: MdcrModelLists = {};
  const indexDir = values['bm25-index'];
  if (indexDir) {
    const ix = loadIndex(indexDir);
    checkIndexMatchesStore(readIndexMeta(indexDir), ix, store, indexDir);
    models.bm25 = await bm25MdcrLists(store, new Bm25Retriever(ix, store, { tieKey: store.idOrder, threads, indexDir }), plan);
  }
  for (const r of runs) models[r.name] = readRunLists(store, r.path, plan);
  const built = buildMdcr(store, plan, models);
  const files = writeMdcr(out, store, built, { seed, queriesPerField: perField, poolSize, queryYear, fields: plan.fields, models: names });
  process.stdout.write(formatJaccard(built.test));
  for (const split of MDCR_SPLITS) {
    const b = built[split];
    console.log(`${split}: ${b.counts.queries} queries, ${b.counts.pairs} query–candidate pairs, types ${[...b.chosen, 'graph', 'most_cited', 'random'].join(', ')}`);
  }
  for (const n of [...built.official.notes, ...built.test.notes, ...built.val.notes]) console.error(`note: ${n}`);
  console.log(`wrote ${files.join(', ')}`);
  store.close();
}

/** A retriever's ranked lists over each split's field-level pools (the query itself excluded). */
async function bm25MdcrLists(store: CorpusStore, retriever: Retriever, plan: MdcrPlan): Promise<Record<MdcrSplit, Map<FieldName, RankedIds>>> {
  const out = { test: new Map<FieldName, RankedIds>(), val: new Map<FieldName, RankedIds>() };
  for (const split of MDCR_SPLITS) {
    for (const f of plan.fields) {
      const queries = plan.queries[split].get(f)!;
      out[split].set(f, await retriever.search({ queries, pool: plan.pools[split].get(f)!, k: mdcrListDepth(store, queries) }));
    }
  }
  return out;
}

function checkPlanFields(fields: string[] | undefined, scheme: FieldScheme): FieldName[] | undefined {
  if (!fields) return undefined;
  return fields.map((s) => {
    const f = parseSchemeField(scheme, s.trim());
    if (!f) throw new CitebenchError(`unknown field '${s}' (this store's fields are ${schemeFieldHint(scheme)})`);
    return f;
  });
}
