/**
 * MDCR construction (paper §4.1) over a corpus store: for each field-level query, 5 random cited articles
 * (`true`) and 10 negatives of each candidate type. A negative is never cited by the query, never the query
 * itself, and never twice in one query (types are drawn in a fixed order, each skipping what earlier types took).
 *
 * Types, in drawing order (the file holds evaluate.py's seven keys in its order, other models' keys after them,
 * `true` last; see officialKeyOrder):
 *  - model-based, one per chosen model: 10 random of the model's top-200 negatives for the query = the first
 *    200 articles of its ranked list (field-level pool) that the query does not cite. The models chosen are the
 *    3 with the lowest average pairwise Jaccard index between these top-200 negative sets (mean over the
 *    split's queries; ties by model order); with fewer models, all of them (and a note says so).
 *  - `graph`: OC_q = articles q cites, O(q,c) = |OC_q ∩ (OC_c ∪ IC_c)| / |OC_q| for each c in OC_q. Cited
 *    articles are walked by O descending, ties by paper id (byte order); each contributes its neighbours
 *    (cited or citing, in-store) that are eligible, all of them while they fit, else a random subset filling
 *    the remaining places. Stops at 10.
 *  - `most_cited`: the field's articles (store.fields bitmask) ranked by their citation counts in the whole
 *    input (store.inputInbound: citing records counted as prefilter rule 4 counts them — the paper's S2ORC
 *    counts, not the prefiltered store's), ties by paper id byte order; 10 random of the top 200 eligible for q.
 *  - `random`: 10 random articles of the whole (prefiltered) store eligible for q.
 * When a type cannot reach 10 (small corpora), it keeps what exists and `counts` records the shortfall.
 * Every draw comes from an RNG stream named by (split, field, query id, type), so a query's candidates do not
 * depend on which other queries are in the split.
 */
import type { CorpusStore } from '../corpus/store.ts';
import { FIELDS, schemeFields, type FieldName, type FieldScheme } from '../corpus/fields.ts';
import { CitebenchError } from '../util/errors.ts';
import { sortedFind } from '../util/sorted.ts';
import { rngFor } from '../util/rng.ts';
import { fieldBitOf, sampleQueries, sampleValQueries, shortfallNote } from './pools.ts';
import type { TextSource } from '../corpus/article.ts';

export type MdcrGraph = Pick<CorpusStore, 'size' | 'fields' | 'inputInbound' | 'idOrder' | 'outOffsets' | 'outTargets' | 'inOffsets' | 'inSources'> & {
  id(i: number): string;
  fieldScheme?: CorpusStore['fieldScheme'];
};

/** Ranked lists in CSR form, best first (retrieval's RankedLists fits; scores are not needed). */
export interface RankedIds {
  offsets: Uint32Array;
  docs: Uint32Array;
}

/** benchmark[field][queryId][type] = candidate paper ids (the official mdcr_{val,test}.json structure and keys). */
export type MdcrFile = Record<string, Record<string, Record<string, string[]>>>;

export type MdcrSplit = 'val' | 'test';
const MDCR_FIXED_TYPES = ['graph', 'most_cited', 'random'] as const;
/**
 * The keys the official evaluator reads, in its order (zoranmedic/mdcr evaluate.py's NEG_TYPES, `true` last): it
 * looks up every one of them in every query, so a built file always carries all seven.
 */
export const MDCR_OFFICIAL_KEYS = ['bm25', 'graph', 'most_cited', 'random', 'scincl', 'specter', 'true'] as const;
/** The official keys that hold model-based candidates (the paper's three models). */
const MDCR_OFFICIAL_MODELS = ['bm25', 'scincl', 'specter'] as const;

/**
 * A query's candidate lists in file order: the official keys in evaluate.py's order (a model-based one whose model
 * was not used holds an empty list), then other models' keys, then `true` — written last, as in takelab's files.
 */
function officialKeyOrder(lists: Record<string, string[]>, chosen: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const k of MDCR_OFFICIAL_KEYS) if (k !== 'true') out[k] = lists[k] ?? [];
  for (const k of chosen) if (!(k in out)) out[k] = lists[k];
  out.true = lists.true;
  return out;
}

export interface MdcrBuildOptions {
  /** Per field: the split's queries (corpus indices); rows of every ranked list follow this order. */
  queries: Map<FieldName, Uint32Array>;
  /** Per model name: its ranked list per field for those queries on the field-level pool, ≥ 200 negatives deep. */
  modelLists?: Record<string, Map<FieldName, RankedIds>>;
  seed: number;
  split: MdcrSplit;
  /** Use these models for the model-based types instead of choosing by Jaccard (e.g. val reuses test's choice). */
  chosen?: string[];
  positives?: number;
  perType?: number;
  /** Depth of a model's negatives (paper: 200). */
  modelDepth?: number;
  /** Most-cited list length per field (paper: 200). */
  mostCitedTop?: number;
  /** Models used for the model-based types (paper: 3). */
  models?: number;
}

export interface MdcrJaccard {
  models: string[];
  /** matrix[i][j] = mean over the split's queries of the Jaccard index of models i and j's top negatives. */
  matrix: number[][];
  /** Mean of each model's row without the diagonal (null with a single model). */
  average: (number | null)[];
  queries: number;
}

export interface TypeCount {
  /** Candidates drawn. */
  got: number;
  /** Places left empty because too few eligible articles existed. */
  short: number;
  /** Queries with a shortfall in this type. */
  shortQueries: number;
}

export interface MdcrBuild {
  split: MdcrSplit;
  benchmark: MdcrFile;
  jaccard: MdcrJaccard;
  chosen: string[];
  notes: string[];
  counts: { queries: number; pairs: number; perType: Record<string, TypeCount> };
}

const NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** A model name usable as a candidate-type key (not clashing with `true` or the other types). */
export function checkModelName(name: string): void {
  if (!NAME_RE.test(name)) throw new CitebenchError(`model name '${name}': use letters, digits, '_', '.', '-' (starting with a letter)`);
  if (name === 'true' || (MDCR_FIXED_TYPES as readonly string[]).includes(name)) throw new CitebenchError(`model name '${name}' clashes with the candidate type of that name`);
}

/** Most-cited articles of a field: by the input's inbound citation counts descending, ties by paper id byte order. */
export function mostCitedOfField(store: MdcrGraph, field: FieldName, top: number): Uint32Array {
  const bit = fieldBitOf(store, field);
  const members: number[] = [];
  for (let i = 0; i < store.size; i++) if (store.fields[i] & bit) members.push(i);
  const count = store.inputInbound;
  members.sort((a, b) => count[b] - count[a] || store.idOrder[a] - store.idOrder[b]);
  return Uint32Array.from(members.slice(0, top));
}

/** The first `depth` articles of a ranked list that the query does not cite (and that are not the query). */
function topNegatives(store: MdcrGraph, q: number, list: Uint32Array, depth: number): Uint32Array {
  const cited = store.outTargets.subarray(store.outOffsets[q], store.outOffsets[q + 1]);
  const out: number[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < list.length && out.length < depth; i++) {
    const d = list[i];
    if (d === q || seen.has(d) || sortedFind(cited, d) >= 0) continue;
    seen.add(d);
    out.push(d);
  }
  return Uint32Array.from(out);
}

/** Graph walk order of q's cited articles: by overlap O(q,c) descending, ties by paper id byte order. */
function graphWalk(store: MdcrGraph, q: number): { order: Uint32Array; overlap: Float64Array } {
  const cited = store.outTargets.subarray(store.outOffsets[q], store.outOffsets[q + 1]);
  const counts = new Map<number, number>();
  for (const c of cited) {
    const nb = new Set<number>([...neighbours(store, c)]);
    let n = 0;
    for (const x of nb) if (sortedFind(cited, x) >= 0) n++;
    counts.set(c, n);
  }
  const order = Uint32Array.from(cited).sort((a, b) => counts.get(b)! - counts.get(a)! || store.idOrder[a] - store.idOrder[b]);
  const overlap = Float64Array.from(order, (c) => counts.get(c)! / cited.length);
  return { order, overlap };
}

/** Distinct in-store neighbours of c (articles it cites, then articles citing it), ascending by paper id. */
function graphNeighbours(store: MdcrGraph, c: number): number[] {
  return [...new Set(neighbours(store, c))].sort((a, b) => store.idOrder[a] - store.idOrder[b]);
}

function* neighbours(store: MdcrGraph, c: number): Generator<number> {
  for (let e = store.outOffsets[c]; e < store.outOffsets[c + 1]; e++) yield store.outTargets[e];
  for (let e = store.inOffsets[c]; e < store.inOffsets[c + 1]; e++) yield store.inSources[e];
}

/** Pairwise mean Jaccard index of the models' top negatives over all queries (J(∅, ∅) = 1). */
function jaccardMatrix(models: string[], negatives: Uint32Array[][]): MdcrJaccard {
  const m = models.length;
  const nq = m ? negatives[0].length : 0;
  const sums = Array.from({ length: m }, () => new Float64Array(m));
  for (let q = 0; q < nq; q++) {
    const sets = negatives.map((per) => new Set(per[q]));
    for (let i = 0; i < m; i++) {
      for (let j = i + 1; j < m; j++) {
        let inter = 0;
        for (const x of sets[i]) if (sets[j].has(x)) inter++;
        const union = sets[i].size + sets[j].size - inter;
        const v = union === 0 ? 1 : inter / union;
        sums[i][j] += v;
        sums[j][i] += v;
      }
    }
  }
  const matrix = sums.map((row, i) => Array.from(row, (s, j) => (i === j ? 1 : nq ? s / nq : 0)));
  const average = matrix.map((row, i) => (m < 2 ? null : row.reduce((s, v, j) => s + (j === i ? 0 : v), 0) / (m - 1)));
  return { models: [...models], matrix, average, queries: nq };
}

/** The `k` models with the lowest average Jaccard index, in their input order (ties: earlier model first). */
function chooseModels(j: MdcrJaccard, k: number): string[] {
  const idx = j.models.map((_, i) => i);
  idx.sort((a, b) => (j.average[a] ?? 0) - (j.average[b] ?? 0) || a - b);
  const keep = new Set(idx.slice(0, k));
  return j.models.filter((_, i) => keep.has(i));
}

/** Build one MDCR split. */
export function buildMdcrSplit(store: MdcrGraph, opts: MdcrBuildOptions): MdcrBuild {
  const P = opts.positives ?? 5;
  const K = opts.perType ?? 10;
  const depth = opts.modelDepth ?? 200;
  const topN = opts.mostCitedTop ?? 200;
  const nModels = opts.models ?? 3;
  const lists = opts.modelLists ?? {};
  const modelNames = Object.keys(lists);
  modelNames.forEach(checkModelName);
  const notes: string[] = [];
  const scheme = schemeFields(store.fieldScheme ?? 'mag');
  const fields = scheme.filter((f) => opts.queries.has(f));
  for (const f of opts.queries.keys()) if (!scheme.includes(f)) throw new CitebenchError(`unknown field '${f}' (not one of this store's fields)`);

  // Top negatives of every model for every query (fields in the scheme's order, queries in the given order).
  const negatives: Uint32Array[][] = modelNames.map(() => []);
  // Lists with fewer than `depth` negatives: the pool (or the run) was too small; noted, not fatal.
  const shallow = modelNames.map(() => 0);
  for (const f of fields) {
    const qs = opts.queries.get(f)!;
    modelNames.forEach((name, m) => {
      const r = lists[name].get(f);
      if (!r) throw new CitebenchError(`model '${name}' has no ranked lists for field ${f}`);
      if (r.offsets.length !== qs.length + 1) throw new CitebenchError(`model '${name}', field ${f}: ${r.offsets.length - 1} ranked lists for ${qs.length} queries`);
      qs.forEach((q, k) => {
        const neg = topNegatives(store, q, r.docs.subarray(r.offsets[k], r.offsets[k + 1]), depth);
        if (neg.length < depth) shallow[m]++;
        negatives[m].push(neg);
      });
    });
  }
  modelNames.forEach((name, m) => {
    if (shallow[m]) notes.push(`${opts.split}: model '${name}' ranked fewer than ${depth} negatives for ${shallow[m]} queries (small pool or short run): its top negatives are all it ranked`);
  });
  const jaccard = jaccardMatrix(modelNames, negatives);
  let chosen: string[];
  if (opts.chosen) {
    for (const c of opts.chosen) if (!lists[c]) throw new CitebenchError(`chosen model '${c}' has no ranked lists`);
    chosen = modelNames.filter((n) => opts.chosen!.includes(n));
  } else {
    chosen = chooseModels(jaccard, nModels);
    if (modelNames.length === 0) notes.push('no model ranked lists given: the model-based candidate types are left out');
    else if (modelNames.length < nModels) notes.push(`only ${modelNames.length} model(s) given (${modelNames.join(', ')}), fewer than ${nModels}: all are used for model-based candidates`);
  }
  const types = [...chosen, ...MDCR_FIXED_TYPES];
  const perType: Record<string, TypeCount> = {};
  for (const t of [...types, 'true']) perType[t] = { got: 0, short: 0, shortQueries: 0 };

  const cited = new Uint8Array(store.size);
  const taken = new Uint8Array(store.size);
  const takenNow: number[] = [];
  const benchmark: MdcrFile = {};
  let nQueries = 0;
  let pairs = 0;
  let row = 0; // position in `negatives`
  for (const f of fields) {
    const qs = opts.queries.get(f)!;
    const mostCited = mostCitedOfField(store, f, topN);
    const out: Record<string, Record<string, string[]>> = {};
    for (let k = 0; k < qs.length; k++, row++) {
      const q = qs[k];
      const qid = store.id(q);
      const oc = store.outTargets.subarray(store.outOffsets[q], store.outOffsets[q + 1]);
      if (oc.length < P) throw new CitebenchError(`query ${qid} (${f}) cites ${oc.length} store articles, ${P} needed: sample queries with minCited ${P}`);
      const rng = (type: string) => rngFor(opts.seed, `mdcr/${opts.split}/${f}/${qid}/${type}`);
      for (const c of oc) cited[c] = 1;
      const ok = (d: number) => d !== q && !cited[d] && !taken[d];
      const lists: Record<string, string[]> = {};
      const record = (type: string, picked: number[]) => {
        for (const d of picked) {
          taken[d] = 1;
          takenNow.push(d);
        }
        lists[type] = picked.map((d) => store.id(d));
        const c = perType[type];
        c.got += picked.length;
        if (picked.length < K) {
          c.short += K - picked.length;
          c.shortQueries++;
        }
      };
      const sampleFrom = (type: string, pool: ArrayLike<number>) => {
        const elig: number[] = [];
        for (let i = 0; i < pool.length; i++) if (ok(pool[i])) elig.push(pool[i]);
        const n = Math.min(K, elig.length);
        return Array.from(rng(type).sampleIndices(elig.length, n), (i) => elig[i]);
      };
      for (const name of chosen) record(name, sampleFrom(name, negatives[modelNames.indexOf(name)][row]));
      // graph: walk the cited articles by overlap, taking their eligible neighbours.
      {
        const picked: number[] = [];
        const g = rng('graph');
        for (const c of graphWalk(store, q).order) {
          const need = K - picked.length;
          if (need === 0) break;
          const elig = graphNeighbours(store, c).filter((d) => ok(d) && !picked.includes(d));
          if (elig.length <= need) picked.push(...elig);
          else for (const i of g.sampleIndices(elig.length, need)) picked.push(elig[i]);
        }
        record('graph', picked);
      }
      record('most_cited', sampleFrom('most_cited', mostCited));
      // random: rejection sampling over the whole store, then an exhaustive fallback for tiny stores.
      {
        const picked: number[] = [];
        const g = rng('random');
        const mark = new Set<number>();
        for (let tries = 0; picked.length < K && tries < 64 * K; tries++) {
          const d = g.nextInt(store.size);
          if (ok(d) && !mark.has(d)) {
            mark.add(d);
            picked.push(d);
          }
        }
        if (picked.length < K) {
          const elig: number[] = [];
          for (let d = 0; d < store.size; d++) if (ok(d) && !mark.has(d)) elig.push(d);
          const n = Math.min(K - picked.length, elig.length);
          for (const i of g.sampleIndices(elig.length, n)) picked.push(elig[i]);
        }
        record('random', picked);
      }
      // Positives last in the file (evaluate.py's labelling gives `true` the last word); drawn from their own stream.
      const pos = Array.from(rng('true').sampleIndices(oc.length, P), (i) => oc[i]);
      lists.true = pos.map((d) => store.id(d));
      perType.true.got += P;
      pairs += P + types.reduce((n, t) => n + lists[t].length, 0);
      for (const c of oc) cited[c] = 0;
      for (const d of takenNow) taken[d] = 0;
      takenNow.length = 0;
      out[qid] = officialKeyOrder(lists, chosen);
      nQueries++;
    }
    benchmark[f] = out;
  }
  for (const t of types) {
    const c = perType[t];
    if (c.short > 0) notes.push(`${opts.split}: candidate type '${t}' is ${c.short} candidates short (${c.shortQueries} queries had fewer than ${K} eligible articles)`);
  }
  return { split: opts.split, benchmark, jaccard, chosen, notes, counts: { queries: nQueries, pairs, perType } };
}

/** What the official evaluator (evaluate.py) will see of a built benchmark, and one line for each way it falls short. */
export interface MdcrOfficialCheck {
  /** Official model-based keys written as empty lists (their model was not given, or not chosen). */
  empty: string[];
  /** Model-based keys evaluate.py does not read. */
  extra: string[];
  /** Fields the benchmark holds (evaluate.py needs all 19). */
  fields: number;
  notes: string[];
}

export function mdcrOfficialCheck(chosen: readonly string[], given: readonly string[], fields: readonly FieldName[], scheme: FieldScheme = 'mag'): MdcrOfficialCheck {
  const official = MDCR_OFFICIAL_KEYS as readonly string[];
  const empty = MDCR_OFFICIAL_MODELS.filter((k) => !chosen.includes(k));
  const extra = chosen.filter((k) => !official.includes(k));
  const notes: string[] = [];
  if (empty.length) {
    const why = empty.map((k) => (given.includes(k) ? `${k}: given but not chosen by the Jaccard rule` : `${k}: no such model given`));
    notes.push(`official keys ${empty.join(', ')} hold empty lists (${why.join('; ')}): evaluate.py reads them as no candidates`);
  }
  if (extra.length) {
    notes.push(`model-based candidates of ${extra.join(', ')} are under keys the official evaluate.py does not read (it reads only ${official.join(', ')}): there they are left out; citebench mdcr-eval evaluates them`);
  }
  if (scheme === 'topics') {
    notes.push(`${fields.length} OpenAlex Topics fields, not MAG's: the official evaluate.py cannot read this benchmark (it iterates MAG's 19 fields and stops with KeyError '${FIELDS[0]}'); evaluate it with citebench mdcr-eval`);
  } else if (fields.length < FIELDS.length) {
    const missing = FIELDS.filter((f) => !fields.includes(f));
    notes.push(`${fields.length} of the 19 fields: the official evaluate.py cannot read this benchmark (it iterates all 19 and stops with KeyError '${missing[0]}'); evaluate it with citebench mdcr-eval`);
  }
  return { empty, extra, fields: fields.length, notes };
}

export interface MdcrQueryOptions<F extends FieldName = FieldName> {
  fields: readonly F[];
  /** Queries per field and split (paper: 200). */
  count: number;
  seed: number;
  queryYear?: number;
  /** Cited store articles a query needs (= the positives, 5). */
  minCited?: number;
  /** Corpus indices never used as queries (the exclusion lists of the run). */
  exclude?: Uint32Array | Set<number>;
}

/**
 * The field-level queries of both splits. Test: the field-level sampler (sampleQueries) restricted to articles
 * citing ≥ minCited store articles; val: a second sample of the same field's eligible articles minus the test
 * queries (its own RNG stream), so the splits are disjoint within a field.
 */
export function sampleMdcrQueries<F extends FieldName>(store: Parameters<typeof sampleQueries>[0], opts: MdcrQueryOptions<F>): { test: Map<F, Uint32Array>; val: Map<F, Uint32Array>; notes: string[] } {
  const minCited = opts.minCited ?? 5;
  const test = new Map<F, Uint32Array>();
  const val = new Map<F, Uint32Array>();
  const notes: string[] = [];
  for (const field of opts.fields) {
    const q = { count: opts.count, seed: opts.seed, field, queryYear: opts.queryYear, minCited, ...(opts.exclude ? { exclude: opts.exclude } : {}) };
    const t = sampleQueries(store, q);
    test.set(field, t);
    // The val split takes what the test split leaves when that is fewer than asked (the one rule, pools.ts).
    const v = sampleValQueries(store, q, t);
    val.set(field, v.queries);
    if (v.queries.length < v.requested) notes.push(`val: ${shortfallNote(`field ${field}`, v.queries.length, v.requested, v.candidates)}`);
  }
  return { test, val, notes };
}

export interface MdcrDataRecord {
  paper_id: string;
  title: string;
  abstract: string;
}

/** Every query and candidate of a benchmark once, sorted by paper id (byte order), with its text. */
export function mdcrDataRecords(store: TextSource & { indexOf(id: string): number }, benchmark: MdcrFile): MdcrDataRecord[] {
  const ids = new Set<string>();
  for (const queries of Object.values(benchmark)) {
    for (const [qid, lists] of Object.entries(queries)) {
      ids.add(qid);
      for (const list of Object.values(lists)) for (const id of list) ids.add(id);
    }
  }
  const sorted = [...ids].sort(compareBytes);
  return sorted.map((id) => {
    const i = store.indexOf(id);
    if (i < 0) throw new CitebenchError(`paper ${id} of the benchmark is not in the corpus store`);
    const t = store.text(i);
    return { paper_id: id, title: t.title, abstract: t.abstract };
  });
}

/** The benchmark JSON text (key order as built: fields in the scheme's order, `true` last in each query). */
export function mdcrBenchmarkText(b: MdcrFile): string {
  return JSON.stringify(b) + '\n';
}

export function mdcrDataText(records: MdcrDataRecord[]): string {
  return records.map((r) => JSON.stringify({ paper_id: r.paper_id, title: r.title, abstract: r.abstract }) + '\n').join('');
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
