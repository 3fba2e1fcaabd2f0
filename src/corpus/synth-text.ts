/**
 * The text side of the synthetic corpus: vocabulary, field and topic words (the lexicon), and the S2ORC JSON
 * record of each article; shared by synthesize() (synth.ts) and its shard-writing workers (synth-worker.ts).
 * Per-article attributes and the citation graph live in SharedArrayBuffers so workers read them in place.
 */
import { join } from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { AliasTable, zipfWeights } from '../util/alias.ts';
import { Rng, rngFor, hashString } from '../util/rng.ts';
import { writeFileAtomicAsync } from '../util/atomic.ts';
import { FIELDS } from './fields.ts';
import { workJson } from './synth-openalex.ts';

/** What shard writing needs of a SynthConfig (synth.ts). */
export interface ShardConfig {
  articles: number;
  seed: number;
  shardSize: number;
  vocabulary: number;
  /** 'openalex': write each record as an OpenAlex work (synth-openalex.ts). */
  format?: 'openalex';
}

/** Field shares: counts of each MAG field in the 1,000-record real S2ORC sample (shared/data). */
const FIELD_COUNTS: Record<string, number> = {
  Medicine: 217, Physics: 187, Biology: 120, Chemistry: 92, Mathematics: 81, 'Computer Science': 65,
  Psychology: 51, Sociology: 41, 'Political Science': 40, History: 34, Engineering: 24, 'Materials Science': 24,
  Economics: 14, Business: 14, Philosophy: 7, Geology: 6, Art: 4, 'Environmental Science': 4, Geography: 3,
};

const STOP_AND_FUNCTION = [
  'the', 'of', 'and', 'in', 'to', 'a', 'is', 'for', 'with', 'we', 'that', 'on', 'by', 'this', 'are', 'as', 'from',
  'be', 'was', 'an', 'these', 'which', 'our', 'were', 'at', 'it', 'can', 'between', 'using', 'their', 'has', 'also',
  'results', 'study', 'based', 'show', 'new', 'two', 'high', 'both', 'however', 'than', 'been', 'not', 'its',
];

/** What every article's text draws on; cheap to rebuild from (seed, vocabulary, topics), e.g. in a worker. */
export interface Lexicon {
  vocab: string[];
  background: AliasTable;
  stop: AliasTable;
  fieldWords: Uint32Array[]; // per field: vocabulary ids
  fieldAlias: AliasTable; // over the words of one field (same shape for all)
  topicWords: Uint32Array[];
  topicAlias: AliasTable;
  topicField: Uint8Array;
  topicsOfField: number[][];
  topicPopularity: AliasTable[];
  fieldShare: AliasTable;
}

/** Per article, in generation (year) order; in shared memory so shard-writing workers read them in place. */
export interface Attributes {
  year: Uint16Array;
  topic: Uint32Array;
  topic2: Uint32Array;
  /** Position of the article inside its topic, on a circle [0, 1): nearby articles use nearby topic words. */
  pos: Float32Array;
  fields: Uint32Array;
  flags: Uint8Array; // 1 no year, 2 empty title, 4 no abstract, 8 short abstract, 16 obscure (OBSCURE)
}

export type World = Lexicon & Attributes;

/** 's2orc-raw' profile: a record that is only cited by stray references and cites little itself. */
export const OBSCURE = 16;

const FIELD_WORDS = 400;
const TOPIC_WORDS = 150;

type TypedCtor<T> = { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };
export function shared<T>(ctor: TypedCtor<T>, n: number): T {
  return new ctor(new SharedArrayBuffer(Math.max(1, n) * ctor.BYTES_PER_ELEMENT));
}
export function toShared(a: Uint32Array): Uint32Array {
  const out = shared(Uint32Array, a.length).subarray(0, a.length);
  out.set(a);
  return out;
}

export function buildLexicon(cfg: ShardConfig, T: number): Lexicon {
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
  return {
    vocab, background, stop, fieldWords, fieldAlias: new AliasTable(zipfWeights(FIELD_WORDS, 0.9, 3)),
    topicWords, topicAlias: new AliasTable(zipfWeights(TOPIC_WORDS, 0.9, 2)), topicField: Uint8Array.from(topicField),
    topicsOfField, topicPopularity, fieldShare,
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


export interface Graph {
  outOff: Uint32Array;
  outDst: Uint32Array;
  /** External (not-in-corpus) references per article. */
  extOut: Uint8Array;
}

/** Everything a shard writer needs besides the lexicon (which it rebuilds from the config). */
export interface ShardJob {
  cfg: ShardConfig;
  topics: number;
  outDir: string;
  names: string[];
  order: Uint32Array;
  attributes: Attributes;
  graph: Graph;
  inbound: { offsets: Uint32Array; targets: Uint32Array };
}

export function shardRange(n: number, shardSize: number, s: number): [number, number] {
  return [s * shardSize, Math.min(n, (s + 1) * shardSize)];
}

/**
 * Write shard s (atomically); `tick` is told how many records were written. Records are compressed as they are
 * made, a thousand at a time, so a shard is never held whole (a 100 k-record shard is ~250 MB of JSON): gzip at
 * level 1 without intermediate flushes gives the same bytes however its input is split.
 */
export async function writeShard(job: ShardJob, world: World, s: number, tick: (k: number) => void): Promise<void> {
  const [from, to] = shardRange(job.cfg.articles, job.cfg.shardSize, s);
  await writeFileAtomicAsync(join(job.outDir, job.names[s]), async (write) => {
    const gz = createGzip({ level: 1 });
    const ended = new Promise<void>((resolve, reject) => {
      gz.on('data', (chunk: Buffer) => write(chunk));
      gz.on('end', resolve);
      gz.on('error', reject);
    });
    let batch: string[] = [];
    const flush = async () => {
      if (!gz.write(batch.join('\n') + '\n')) await once(gz, 'drain');
      tick(batch.length);
      batch = [];
    };
    for (let k = from; k < to; k++) {
      batch.push(recordJson(job.order[k], job.cfg, world, job.graph, job.inbound));
      if (batch.length === 1000) await flush();
    }
    if (batch.length) await flush();
    gz.end();
    await ended;
  });
}

/** The lexicon of a job, rebuilt in a worker (strings and alias tables do not cross threads cheaply). */
export function jobWorld(job: ShardJob): World {
  return { ...buildLexicon(job.cfg, job.topics), ...job.attributes };
}


// ---- records -----------------------------------------------------------------------------------------------

/** Distinct 9-digit paper ids: an affine bijection of [0, 9e8) (1,000,003 is coprime with 9e8). */
function synthPaperId(i: number, seed: number): string {
  const c = hashString(`ids:${seed}`) % 900_000_000;
  return String(100_000_000 + ((i * 1_000_003 + c) % 900_000_000));
}

function recordJson(i: number, cfg: ShardConfig, w: World, g: Graph, inbound: { offsets: Uint32Array; targets: Uint32Array }): string {
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
  // The work draws after the record: the v2020 form's stream, and so its bytes, are the same either way.
  if (cfg.format === 'openalex') return workJson({ paperId: id, title, abstract, year: record.year, fields: fieldNames, references: out, citedBy: inb.length }, r);
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
