/**
 * A synthetic corpus in the exact S2ORC metadata schema, for exercising citebench at the paper's scale where
 * no real S2ORC exists. Built so the paper's effects can show up:
 *  - the 19 MAG fields with the shares of the real S2ORC sample, ~7 % multi-field and ~5 % unlabelled articles;
 *  - years 1950–2020 skewed to recent ones (2020 half-covered, like the 2020-07 snapshot);
 *  - topic-structured text: each article mixes words of its topic, its field and a shared Zipfian background
 *    (plus English stop words); inside a topic, articles sit on a circle of topic words and cite near
 *    neighbours, and each owns a few rare "signature" words that articles citing it often mention — so
 *    lexical overlap correlates with citation, and degrades gracefully as pools grow (as in the paper);
 *  - citations only to articles generated earlier, i.e. older or same-year; same-topic locality,
 *    preferential attachment (cited-often gets cited more) and a pull towards recent work; 2019 articles
 *    reference ~29 corpus articles on average, plus a few ids outside the corpus as in real S2ORC subsets;
 *  - a share of articles fails each prefilter rule (no year, empty title, missing or short abstract); few
 *    citations happens by itself for unpopular articles.
 * Everything derives from the seed through named RNG streams: same (articles, seed) ⇒ byte-identical shards.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AliasTable, zipfWeights } from '../util/alias.ts';
import { Rng, rngFor, hashString } from '../util/rng.ts';
import { FIELDS } from './fields.ts';
import { Growable } from '../util/growable.ts';
import { transposeCsr } from './store-build.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { Progress } from '../util/progress.ts';
import { CitebenchError } from '../util/errors.ts';

export interface SynthConfig {
  articles: number;
  seed: number;
  /** Articles per shard file. */
  shardSize: number;
  /** Topics (default: one per ~1,000 articles, at least 50). */
  topics?: number;
  vocabulary: number;
  /** Mean references of a 2019 article to other articles of the prefiltered corpus store. */
  refs2019: number;
}

/**
 * Version of the generator's output: bump it with any change to what synthesize() writes for a given config, so
 * shards, corpus stores and result cells stamped with the old version are rebuilt rather than reused.
 */
export const SYNTH_VERSION = 1;

export const SYNTH_DEFAULTS: Omit<SynthConfig, 'articles' | 'seed'> = {
  shardSize: 100_000,
  vocabulary: 60_000,
  refs2019: 29,
};

/** Field shares: counts of each MAG field in the 1,000-record real S2ORC sample (shared/data). */
const FIELD_COUNTS: Record<string, number> = {
  Medicine: 217, Physics: 187, Biology: 120, Chemistry: 92, Mathematics: 81, 'Computer Science': 65,
  Psychology: 51, Sociology: 41, 'Political Science': 40, History: 34, Engineering: 24, 'Materials Science': 24,
  Economics: 14, Business: 14, Philosophy: 7, Geology: 6, Art: 4, 'Environmental Science': 4, Geography: 3,
};
const P_SECOND_FIELD = 0.075;
const P_NO_FIELD = 0.047;
const P_NO_YEAR = 0.012;
const P_EMPTY_TITLE = 0.004;
const P_NO_ABSTRACT = 0.1;
const P_SHORT_ABSTRACT = 0.02;

const STOP_AND_FUNCTION = [
  'the', 'of', 'and', 'in', 'to', 'a', 'is', 'for', 'with', 'we', 'that', 'on', 'by', 'this', 'are', 'as', 'from',
  'be', 'was', 'an', 'these', 'which', 'our', 'were', 'at', 'it', 'can', 'between', 'using', 'their', 'has', 'also',
  'results', 'study', 'based', 'show', 'new', 'two', 'high', 'both', 'however', 'than', 'been', 'not', 'its',
];

export interface SynthSummary {
  articles: number;
  shards: string[];
  citations: number;
}

export async function synthesize(cfg: SynthConfig, outDir: string, opts: { progress?: boolean } = {}): Promise<SynthSummary> {
  if (!Number.isInteger(cfg.articles) || cfg.articles < 1) throw new CitebenchError(`--articles must be a positive integer, got ${cfg.articles}`);
  const n = cfg.articles;
  const T = cfg.topics ?? Math.max(50, Math.round(n / 1000));
  mkdirSync(outDir, { recursive: true });
  const manifestPath = join(outDir, 'synth.json');
  const manifest = JSON.stringify({ generator: 'citebench-synth', version: SYNTH_VERSION, ...cfg, topics: T }, null, 1) + '\n';
  // Resume: shards already written for this exact config are kept; anything else in the way is replaced.
  const resume = existsSync(manifestPath) && readFileSync(manifestPath, 'utf8') === manifest;
  if (!resume) {
    for (const f of shardNames(n, cfg.shardSize)) rmSync(join(outDir, f), { force: true });
    writeFileAtomic(manifestPath, manifest);
  }

  const world = buildWorld(cfg, T);
  const graph = buildCitations(cfg, world);
  const inbound = transposeCsr(n, graph.outOff, graph.outDst);

  // Output order: a seeded shuffle, so shards are not sorted by year (S2ORC shards are not).
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  rngFor(cfg.seed, 'output-order').shuffle(order);

  const names = shardNames(n, cfg.shardSize);
  const progress = new Progress({ label: 'synth', total: n, unit: 'articles', enabled: opts.progress });
  for (let s = 0; s < names.length; s++) {
    const path = join(outDir, names[s]);
    const from = s * cfg.shardSize;
    const to = Math.min(n, from + cfg.shardSize);
    if (resume && existsSync(path)) {
      progress.tick(to - from);
      continue;
    }
    const lines: string[] = [];
    for (let k = from; k < to; k++) {
      lines.push(recordJson(order[k], cfg, world, graph, inbound));
      progress.tick();
    }
    writeFileAtomic(path, gzipSync(lines.join('\n') + '\n', { level: 1 }));
  }
  progress.finish();
  return { articles: n, shards: names.map((f) => join(outDir, f)), citations: graph.outDst.length };
}

function shardNames(n: number, shardSize: number): string[] {
  const count = Math.ceil(n / shardSize);
  return Array.from({ length: count }, (_, s) => `metadata_${String(s).padStart(4, '0')}.jsonl.gz`);
}

// ---- the world: vocabulary, fields, topics, article attributes --------------------------------------------

interface World {
  vocab: string[];
  background: AliasTable;
  stop: AliasTable;
  fieldWords: Uint32Array[]; // per field: vocabulary ids
  fieldAlias: AliasTable; // over the words of one field (same shape for all)
  topicWords: Uint32Array[];
  topicAlias: AliasTable;
  topicField: Uint8Array;
  /** Per article, in generation (year) order. */
  year: Uint16Array;
  topic: Uint32Array;
  topic2: Uint32Array;
  /** Position of the article inside its topic, on a circle [0, 1): nearby articles use nearby topic words. */
  pos: Float32Array;
  fields: Uint32Array;
  flags: Uint8Array; // 1 no year, 2 empty title, 4 no abstract, 8 short abstract
}

const FIELD_WORDS = 400;
const NEAR_CANDIDATES = 8;
const TOPIC_WORDS = 150;

function buildWorld(cfg: SynthConfig, T: number): World {
  const n = cfg.articles;
  const vocab = makeVocabulary(cfg.vocabulary, rngFor(cfg.seed, 'vocabulary'));
  const background = new AliasTable(zipfWeights(vocab.length, 1.05));
  const stop = new AliasTable(zipfWeights(STOP_AND_FUNCTION.length, 0.9, 1));
  const wr = rngFor(cfg.seed, 'field-topic-words');
  // Field and topic words come from the mid/low-frequency part of the vocabulary (ranks ≥ 300),
  // drawn with a mild Zipf so some topic words are shared across topics.
  const specific = new AliasTable(zipfWeights(vocab.length - 300, 0.6, 50));
  const pick = (k: number) => {
    const s = new Set<number>();
    while (s.size < k) s.add(300 + specific.sample(wr));
    return Uint32Array.from(s);
  };
  const fieldWords = FIELDS.map(() => pick(FIELD_WORDS));
  const fieldShare = new AliasTable(FIELDS.map((f) => FIELD_COUNTS[f]));
  // Topics are split across fields in proportion to the field shares (at least 3 each), and an article
  // picks its field first, then a topic of that field by Zipfian popularity: field shares stay exact
  // in expectation however few topics there are.
  const totalCount = FIELDS.reduce((s, f) => s + FIELD_COUNTS[f], 0);
  const topicsOfField: number[][] = [];
  const topicField: number[] = [];
  for (let f = 0; f < FIELDS.length; f++) {
    const k = Math.max(3, Math.round((T * FIELD_COUNTS[FIELDS[f]]) / totalCount));
    const list: number[] = [];
    for (let j = 0; j < k; j++) {
      list.push(topicField.length);
      topicField.push(f);
    }
    topicsOfField.push(list);
  }
  const topicWords = topicField.map(() => pick(TOPIC_WORDS));
  const topicPopularity = topicsOfField.map((list) => new AliasTable(zipfWeights(list.length, 0.7, 5)));

  // Years: weight ∝ exp((y − 2019)/9) for 1950–2019; 2020 half a year.
  const yearsList: number[] = [];
  const yearW: number[] = [];
  for (let y = 1950; y <= 2020; y++) {
    yearsList.push(y);
    yearW.push(Math.exp((y - 2019) / 9) * (y === 2020 ? 0.5 : 1));
  }
  const yearAlias = new AliasTable(yearW);
  const ar = rngFor(cfg.seed, 'articles');
  const rawYear = new Uint16Array(n);
  for (let i = 0; i < n; i++) rawYear[i] = yearsList[yearAlias.sample(ar)];
  rawYear.sort(); // generation order = chronological: every earlier article is older or same-year

  const year = rawYear;
  const topic = new Uint32Array(n);
  const topic2 = new Uint32Array(n);
  const fields = new Uint32Array(n);
  const flags = new Uint8Array(n);
  const pos = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const f = fieldShare.sample(ar);
    const same = topicsOfField[f];
    const t = same[topicPopularity[f].sample(ar)];
    topic[i] = t;
    topic2[i] = ar.next() < 0.5 ? same[ar.nextInt(same.length)] : t;
    let mask = 1 << f;
    if (ar.next() < P_SECOND_FIELD) mask |= 1 << fieldShare.sample(ar);
    if (ar.next() < P_NO_FIELD) mask = 0;
    fields[i] = mask;
    let fl = 0;
    if (ar.next() < P_NO_YEAR) fl |= 1;
    if (ar.next() < P_EMPTY_TITLE) fl |= 2;
    const u = ar.next();
    if (u < P_NO_ABSTRACT) fl |= 4;
    else if (u < P_NO_ABSTRACT + P_SHORT_ABSTRACT) fl |= 8;
    flags[i] = fl;
    pos[i] = ar.next();
  }
  return {
    vocab, background, stop, fieldWords, fieldAlias: new AliasTable(zipfWeights(FIELD_WORDS, 0.9, 3)),
    topicWords, topicAlias: new AliasTable(zipfWeights(TOPIC_WORDS, 0.9, 2)), topicField: Uint8Array.from(topicField), year, topic, topic2, pos, fields, flags,
  };
}

/** Pronounceable, distinct pseudo-words, most frequent first; no English stop word among them. */
function makeVocabulary(size: number, rng: Rng): string[] {
  const onset = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'cl', 'cr', 'dr', 'gl', 'gr', 'pl', 'pr', 'sc', 'sp', 'st', 'tr', 'ph', 'th', 'ch', 'qu'];
  const nucleus = ['a', 'e', 'i', 'o', 'u', 'y', 'ae', 'io', 'ou', 'ea'];
  const coda = ['', '', '', 'n', 'r', 's', 'l', 'x', 'm', 't', 'nd', 'st', 'rm', 'ct', 'ph'];
  const endings = ['', '', '', 'ic', 'al', 'ase', 'ine', 'ide', 'ion', 'ity', 'osis', 'ment', 'ate', 'ing', 'ed', 'ous', 'ics', 'ism'];
  const seen = new Set<string>(STOP_AND_FUNCTION);
  const out: string[] = [];
  while (out.length < size) {
    const syll = 1 + rng.nextInt(out.length < 2000 ? 2 : 3) + (out.length > 20000 ? 1 : 0);
    let w = '';
    for (let s = 0; s < syll; s++) w += onset[rng.nextInt(onset.length)] + nucleus[rng.nextInt(nucleus.length)] + (s === syll - 1 ? coda[rng.nextInt(coda.length)] : '');
    w += endings[rng.nextInt(endings.length)];
    if (w.length < 3 || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

// ---- citations ---------------------------------------------------------------------------------------------

interface Graph {
  outOff: Uint32Array;
  outDst: Uint32Array;
  /** External (not-in-corpus) references per article. */
  extOut: Uint8Array;
}

function buildCitations(cfg: SynthConfig, w: World): Graph {
  const n = cfg.articles;
  const T = w.topicWords.length;
  // Calibrated so that the PREFILTERED store, not the raw shards, averages refs2019 for 2019 articles
  // (the prefilter drops ~15 % of cited articles).
  const refsRaw = cfg.refs2019 * 1.18;
  const r = rngFor(cfg.seed, 'citations');
  // Per topic / per field: members in chronological order and an urn holding one entry per citation
  // received (preferential attachment), both as growable typed arrays.
  const topicMembers = Array.from({ length: T }, () => new Growable(Uint32Array, 16));
  const topicUrn = Array.from({ length: T }, () => new Growable(Uint32Array, 16));
  const fieldMembers = FIELDS.map(() => new Growable(Uint32Array, 1024));
  const fieldUrn = FIELDS.map(() => new Growable(Uint32Array, 1024));
  const allUrn = new Growable(Uint32Array, 1 << 16);
  const outOff = new Uint32Array(n + 1);
  const outDst = new Growable(Uint32Array, n * 16);
  const extOut = new Uint8Array(n);
  const chosen = new Set<number>();

  const fromGroup = (members: Growable<Uint32Array>, urn: Growable<Uint32Array>): number => {
    const m = members.length;
    if (m === 0) return -1;
    const u = r.next();
    if (u < 0.35 || urn.length === 0) {
      // Uniform, but half of the time over the most recent 30 % (recency).
      const lo = r.next() < 0.5 ? Math.floor(m * 0.7) : 0;
      return members.get(lo + r.nextInt(m - lo));
    }
    return urn.get(r.nextInt(urn.length));
  };
  // Within its own topic an article cites the nearest (in topic position) of a few candidates: citations
  // link articles that are close in content, not just in topic.
  const near = (members: Growable<Uint32Array>, urn: Growable<Uint32Array>, at: number): number => {
    let best = -1;
    let bestD = 2;
    for (let k = 0; k < NEAR_CANDIDATES; k++) {
      const c = fromGroup(members, urn);
      if (c < 0) return -1;
      const d = Math.abs(w.pos[c] - at);
      const circ = Math.min(d, 1 - d);
      if (circ < bestD) {
        bestD = circ;
        best = c;
      }
    }
    return best;
  };

  for (let i = 0; i < n; i++) {
    const y = w.year[i];
    // Mean references grow with time: 29 for 2019 (configurable), ~12 in 1950.
    const mean = refsRaw * (0.4 + 0.6 * Math.min(1, (y - 1950) / 69));
    const want = Math.max(0, Math.round(mean * Math.exp(0.45 * r.normal() - 0.101)));
    const t = w.topic[i];
    const f = w.topicField[t];
    chosen.clear();
    for (let tries = 0; chosen.size < want && tries < want * 3; tries++) {
      const u = r.next();
      let c: number;
      if (u < 0.62) c = near(topicMembers[t], topicUrn[t], w.pos[i]);
      else if (u < 0.75) c = fromGroup(topicMembers[w.topic2[i]], topicUrn[w.topic2[i]]);
      else if (u < 0.92) c = fromGroup(fieldMembers[f], fieldUrn[f]);
      else c = allUrn.length ? allUrn.get(r.nextInt(allUrn.length)) : i > 0 ? r.nextInt(i) : -1;
      if (c >= 0) chosen.add(c);
    }
    const refs = Uint32Array.from(chosen).sort();
    for (const c of refs) {
      outDst.push(c);
      topicUrn[w.topic[c]].push(c);
      fieldUrn[w.topicField[w.topic[c]]].push(c);
      allUrn.push(c);
    }
    outOff[i + 1] = outDst.length;
    extOut[i] = Math.min(255, Math.floor(-Math.log(1 - r.next()) * 2)); // ~2 references outside the corpus
    topicMembers[t].push(i);
    fieldMembers[f].push(i);
  }
  return { outOff, outDst: outDst.toArray(), extOut };
}

// ---- records -----------------------------------------------------------------------------------------------

/** Distinct 9-digit paper ids: an affine bijection of [0, 9e8) (1,000,003 is coprime with 9e8). */
export function synthPaperId(i: number, seed: number): string {
  const c = hashString(`ids:${seed}`) % 900_000_000;
  return String(100_000_000 + ((i * 1_000_003 + c) % 900_000_000));
}

function recordJson(i: number, cfg: SynthConfig, w: World, g: Graph, inbound: { offsets: Uint32Array; targets: Uint32Array }): string {
  const r = new Rng((hashString(`article:${cfg.seed}`) ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
  const fl = w.flags[i];
  const t = w.topic[i];
  const t2 = w.topic2[i];
  const f = w.topicField[t];
  const word = (pTopic: number, pField: number, pStop: number): string => {
    const u = r.next();
    if (u < pStop) return STOP_AND_FUNCTION[w.stop.sample(r)];
    if (u < pStop + pTopic) {
      const tt = r.next() < 0.75 ? t : t2;
      if (tt === t && r.next() < 0.6) {
        // Local topic words: those around the article's position on the topic's word circle.
        const k = Math.floor(w.pos[i] * TOPIC_WORDS + r.normal() * 6);
        return w.vocab[w.topicWords[t][((k % TOPIC_WORDS) + TOPIC_WORDS) % TOPIC_WORDS]];
      }
      return w.vocab[w.topicWords[tt][w.topicAlias.sample(r)]];
    }
    if (u < pStop + pTopic + pField) return w.vocab[w.fieldWords[f][w.fieldAlias.sample(r)]];
    return w.vocab[w.background.sample(r)];
  };
  let title = '';
  if (!(fl & 2)) {
    const len = 6 + r.nextInt(9);
    const ws: string[] = [];
    for (let k = 0; k < len; k++) ws.push(word(0.5, 0.15, 0.15));
    if (r.next() < 0.7) ws[r.nextInt(len)] = signatureWord(w, cfg.seed, i, 0);
    title = capitalize(ws.join(' '));
  }
  let abstract: string | null = null;
  if (fl & 8) abstract = capitalize(word(0.5, 0.2, 0) + ' ' + word(0.5, 0.2, 0)) + '.';
  else if (!(fl & 4)) {
    const len = Math.max(150, Math.min(260, Math.round(200 + 30 * r.normal())));
    const ws: string[] = [];
    for (let k = 0; k < len; k++) ws.push(word(0.3, 0.12, 0.35));
    // The article's own signature terms, and some of the works it cites named by theirs.
    for (let k = 0; k < SIGNATURE_WORDS; k++) ws[r.nextInt(len)] = signatureWord(w, cfg.seed, i, k);
    for (let e = g.outOff[i]; e < g.outOff[i + 1]; e++) {
      if (r.next() < P_MENTION) ws[r.nextInt(len)] = signatureWord(w, cfg.seed, g.outDst[e], r.nextInt(SIGNATURE_WORDS));
    }
    const parts: string[] = [];
    for (let k = 0; k < len; ) {
      const sl = Math.min(len - k, 12 + r.nextInt(14));
      parts.push(capitalize(ws.slice(k, k + sl).join(' ')) + '.');
      k += sl;
    }
    abstract = parts.join(' ');
  }
  const id = synthPaperId(i, cfg.seed);
  const out: string[] = [];
  for (let e = g.outOff[i]; e < g.outOff[i + 1]; e++) out.push(synthPaperId(g.outDst[e], cfg.seed));
  for (let k = 0; k < g.extOut[i]; k++) out.push(String(2_000_000_000 + r.nextInt(1_000_000_000)));
  const inb: string[] = [];
  for (let e = inbound.offsets[i]; e < inbound.offsets[i + 1]; e++) inb.push(synthPaperId(inbound.targets[e], cfg.seed));
  const fieldNames = FIELDS.filter((_, b) => w.fields[i] & (1 << b));
  const record = {
    paper_id: id,
    title,
    authors: [{ first: 'A', middle: [], last: `Author${r.nextInt(100000)}`, suffix: '' }],
    abstract,
    year: fl & 1 ? null : w.year[i],
    arxiv_id: null,
    acl_id: null,
    pmc_id: null,
    pubmed_id: null,
    doi: null,
    venue: null,
    journal: null,
    mag_id: String(3_000_000_000 + i),
    mag_field_of_study: fieldNames.length ? fieldNames : null,
    outbound_citations: out,
    inbound_citations: inb,
    has_outbound_citations: out.length > 0,
    has_inbound_citations: inb.length > 0,
    has_pdf_parse: false,
    s2_url: `https://api.semanticscholar.org/CorpusID:${id}`,
  };
  return JSON.stringify(record);
}

/**
 * Signature terms: each article owns a few rare words (its method, material, data set…) that articles citing it
 * often mention. They make citation links lexically visible however large the pool grows, as in real
 * literature, where a cited work's specific terms recur in the texts that cite it.
 */
const SIGNATURE_WORDS = 3;
const P_MENTION = 0.2;
const SIGNATURE_FROM_RANK = 15_000;

function signatureWord(w: World, seed: number, article: number, k: number): string {
  const h = (hashString(`sig:${seed}`) ^ Math.imul(article + 1, 0x9e3779b1) ^ Math.imul(k + 1, 0x85ebca6b)) >>> 0;
  const z = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  const span = w.vocab.length - SIGNATURE_FROM_RANK;
  return w.vocab[SIGNATURE_FROM_RANK + ((z ^ (z >>> 12)) >>> 0) % span];
}

function capitalize(s: string): string {
  return s.length ? s[0].toUpperCase() + s.slice(1) : s;
}
