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
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { SYNTH_OPENALEX_DATE } from './synth-openalex.ts';
import { join } from 'node:path';
import { AliasTable } from '../util/alias.ts';
import { rngFor } from '../util/rng.ts';
import { FIELDS } from './fields.ts';
import {
  OBSCURE, buildLexicon, shardRange, shared, toShared, writeShard,
  type Attributes, type Graph, type Lexicon, type ShardJob, type World,
} from './synth-text.ts';
import { Growable } from '../util/growable.ts';
import { transposeCsr } from '../util/csr.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { Progress } from '../util/progress.ts';
import { CitebenchError } from '../util/errors.ts';
import { requireFreeSpace, type FreeBytes } from '../util/disk.ts';
import { tsWorker } from '../util/ts-worker.ts';
import { availableParallelism } from 'node:os';

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
  /**
   * Absent: records shaped like the prefiltered store (~77 % pass the paper's prefilter). 's2orc-raw': records
   * shaped like the raw S2ORC release, of which ~20 % pass (S2ORC_RAW below).
   */
  profile?: SynthProfile;
  /** Worker threads writing shards (default: up to 2, one per core); the output does not depend on it. */
  threads?: number;
  /**
   * 'openalex': the records written as OpenAlex works in a snapshot's layout (synth-openalex.ts; with the
   * 's2orc-raw' profile, `synth --profile openalex`). Absent: S2ORC v2020 metadata shards.
   */
  format?: 'openalex';
}

export type SynthProfile = 's2orc-raw';
export const SYNTH_PROFILES: readonly SynthProfile[] = ['s2orc-raw'];

/** Shares of records failing each text rule of the prefilter, drawn independently per record. */
interface TextFailures {
  noYear: number;
  emptyTitle: number;
  noAbstract: number;
  shortAbstract: number;
}

/**
 * The raw S2ORC v2020-07-05 release: 81.1 M records, of which the paper's prefilter keeps ~16 M (19.7 %).
 * Calibrated with scripts/dev/s2orc-survival.ts on the 1,000 real records of the S2ORC sample: 1.3 % have no
 * year, 51.2 % no abstract, none an empty title or a present-but-short abstract (the profile keeps 0.1 % and
 * 0.2 % so both rules stay exercised); 86.2 % have fewer than three inbound citations — 76 % of those with an
 * abstract, 96 % of those without. The sample keeps 11.7 %; its 1,000 neighbouring ids are one slice of one shard,
 * so the overall share is taken from the paper (16 M / 81.1 M) and the sample gives the shape.
 * Citations: a "citable" share of records (higher with an abstract, in the sample's 4:24 ratio of ≥ 3-cited
 * records) cites and is cited as in the default profile; the others cite a tenth as much (the sample's records
 * without an abstract and < 3 citations list 0.6 references) and are cited only by stray references to any earlier
 * record, so most of them end with 0–2 inbound citations (sample: 75 % 0, 7 % 1, 4 % 2).
 */
export const S2ORC_RAW = {
  text: { noYear: 0.013, emptyTitle: 0.001, noAbstract: 0.512, shortAbstract: 0.002 } satisfies TextFailures,
  citableWithAbstract: 0.36,
  citableWithoutAbstract: 0.062,
  obscureRefs: 0.1,
  stray: 0.03,
} as const;

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

const P_SECOND_FIELD = 0.075;
const P_NO_FIELD = 0.047;
const STORE_TEXT: TextFailures = { noYear: 0.012, emptyTitle: 0.004, noAbstract: 0.1, shortAbstract: 0.02 };


export interface SynthSummary {
  articles: number;
  shards: string[];
  citations: number;
}

/**
 * Shard bytes per record (gzip level 1), measured at 200 k records: 1.18 kB in the default profile, 0.61 kB in
 * 's2orc-raw' (half its records have no abstract; 0.58 kB at 1 M). The free-space check asks for 10 % more.
 */
export const SHARD_BYTES_PER_RECORD: Record<SynthProfile | 'default', number> = { default: 1180, 's2orc-raw': 610 };
/** The same for OpenAlex works of the 's2orc-raw' records, gzip level 1 (measured at 200 k works). */
const WORK_BYTES_PER_RECORD = 2150;

export async function synthesize(cfg: SynthConfig, outDir: string, opts: { progress?: boolean; freeBytes?: FreeBytes } = {}): Promise<SynthSummary> {
  if (!Number.isInteger(cfg.articles) || cfg.articles < 1) throw new CitebenchError(`--articles must be a positive integer, got ${cfg.articles}`);
  const n = cfg.articles;
  const T = cfg.topics ?? Math.max(50, Math.round(n / 1000));
  mkdirSync(outDir, { recursive: true });
  const manifestPath = join(outDir, 'synth.json');
  const { threads: _threads, ...output } = cfg; // the thread count does not change the output
  const manifest = JSON.stringify({ generator: 'citebench-synth', version: SYNTH_VERSION, ...output, topics: T }, null, 1) + '\n';
  // Resume: shards already written for this exact config are kept; anything else in the way is replaced.
  const resume = existsSync(manifestPath) && readFileSync(manifestPath, 'utf8') === manifest;
  if (!resume) {
    for (const f of shardNames(n, cfg.shardSize, cfg.format)) rmSync(join(outDir, f), { force: true });
    writeFileAtomic(manifestPath, manifest);
  }

  const names = shardNames(n, cfg.shardSize, cfg.format);
  // Resume at the first missing shard: the world and the graph are rebuilt (every shard depends on all of them),
  // only missing shards are written.
  const todo = names.map((_, s) => s).filter((s) => !(resume && existsSync(join(outDir, names[s]))));
  const todoRecords = todo.reduce((sum, s) => sum + shardRange(n, cfg.shardSize, s)[1] - shardRange(n, cfg.shardSize, s)[0], 0);
  const perRecord = cfg.format === 'openalex' ? WORK_BYTES_PER_RECORD : SHARD_BYTES_PER_RECORD[cfg.profile ?? 'default'];
  requireFreeSpace(outDir, 1.1 * todoRecords * perRecord, `synth: ${todoRecords.toLocaleString('en-US')} records of shards`, opts.freeBytes);
  const progress = new Progress({ label: 'synth', total: n, unit: 'articles', enabled: opts.progress });
  progress.tick(n - todoRecords);
  // A finished run (every shard there, and its summary) is not regenerated.
  const summaryPath = join(outDir, 'synth-done.json');
  if (todo.length === 0 && existsSync(summaryPath)) {
    progress.finish();
    const done = JSON.parse(readFileSync(summaryPath, 'utf8')) as { citations: number };
    return { articles: n, shards: names.map((f) => join(outDir, f)), citations: done.citations };
  }
  rmSync(summaryPath, { force: true });

  const lex = buildLexicon(cfg, T);
  const world: World = { ...lex, ...buildAttributes(cfg, lex) };
  const graph = buildCitations(cfg, world);
  const inb = transposeCsr(n, graph.outOff, graph.outDst);
  const inbound = { offsets: toShared(inb.offsets), targets: toShared(inb.targets) };

  // Output order: a seeded shuffle, so shards are not sorted by year (S2ORC shards are not).
  const order = shared(Uint32Array, n);
  for (let i = 0; i < n; i++) order[i] = i;
  rngFor(cfg.seed, 'output-order').shuffle(order);

  const job: ShardJob = {
    cfg, topics: T, outDir, names, order, graph, inbound,
    attributes: { year: world.year, topic: world.topic, topic2: world.topic2, pos: world.pos, fields: world.fields, flags: world.flags },
  };
  const threads = Math.max(1, Math.min(cfg.threads ?? Math.min(2, availableParallelism()), todo.length));
  if (threads === 1) {
    for (const s of todo) await writeShard(job, world, s, (k) => progress.tick(k));
  } else {
    await Promise.all(
      Array.from({ length: threads }, (_, w) => runShardWorker(job, todo.filter((_, k) => k % threads === w), (k) => progress.tick(k))),
    );
  }
  progress.finish();
  if (cfg.format === 'openalex') writeWorksManifest(outDir, names, n, cfg.shardSize);
  writeFileAtomic(summaryPath, JSON.stringify({ citations: graph.outDst.length }) + '\n');
  return { articles: n, shards: names.map((f) => join(outDir, f)), citations: graph.outDst.length };
}

function runShardWorker(job: ShardJob, shards: number[], tick: (k: number) => void): Promise<void> {
  if (shards.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const worker = tsWorker(new URL('./synth-worker.ts', import.meta.url), { workerData: { job, shards } });
    let failed = false;
    worker.on('message', (m: { tick?: number; error?: string }) => {
      if (m.tick) tick(m.tick);
      if (m.error) {
        failed = true;
        reject(new CitebenchError(`synth: writing shards failed in a worker: ${m.error}`));
      }
    });
    worker.on('error', (e) => {
      failed = true;
      reject(e);
    });
    worker.on('exit', (code) => {
      if (failed) return;
      if (code === 0) resolve();
      else reject(new CitebenchError(`synth: a shard-writing worker exited with code ${code}`));
    });
  });
}

function shardNames(n: number, shardSize: number, format?: 'openalex'): string[] {
  const count = Math.ceil(n / shardSize);
  if (format === 'openalex') return Array.from({ length: count }, (_, s) => `updated_date=${SYNTH_OPENALEX_DATE}/part_${String(s).padStart(4, '0')}.gz`);
  return Array.from({ length: count }, (_, s) => `metadata_${String(s).padStart(4, '0')}.jsonl.gz`);
}

/** The snapshot's manifest (Redshift format, as OpenAlex writes it) of the works files. */
function writeWorksManifest(outDir: string, names: string[], n: number, shardSize: number): void {
  const entries = names.map((f, s) => {
    const [from, to] = shardRange(n, shardSize, s);
    return { url: `s3://openalex/data/works/${f}`, meta: { content_length: statSync(join(outDir, f)).size, record_count: to - from } };
  });
  const meta = { content_length: entries.reduce((t, e) => t + e.meta.content_length, 0), record_count: n };
  writeFileAtomic(join(outDir, 'manifest'), JSON.stringify({ entries, meta }) + '\n');
}

// ---- the world: vocabulary, fields, topics, article attributes --------------------------------------------

function buildAttributes(cfg: SynthConfig, lex: Lexicon): Attributes {
  const n = cfg.articles;
  const raw = cfg.profile === 's2orc-raw';
  const rates = raw ? S2ORC_RAW.text : STORE_TEXT;
  const { fieldShare, topicsOfField, topicPopularity } = lex;
  // Years: weight ∝ exp((y − 2019)/9) for 1950–2019; 2020 half a year.
  const yearsList: number[] = [];
  const yearW: number[] = [];
  for (let y = 1950; y <= 2020; y++) {
    yearsList.push(y);
    yearW.push(Math.exp((y - 2019) / 9) * (y === 2020 ? 0.5 : 1));
  }
  const yearAlias = new AliasTable(yearW);
  const ar = rngFor(cfg.seed, 'articles');
  const year = shared(Uint16Array, n);
  for (let i = 0; i < n; i++) year[i] = yearsList[yearAlias.sample(ar)];
  year.sort(); // generation order = chronological: every earlier article is older or same-year

  const topic = shared(Uint32Array, n);
  const topic2 = shared(Uint32Array, n);
  const fields = shared(Uint32Array, n);
  const flags = shared(Uint8Array, n);
  const pos = shared(Float32Array, n);
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
    if (ar.next() < rates.noYear) fl |= 1;
    if (ar.next() < rates.emptyTitle) fl |= 2;
    const u = ar.next();
    if (u < rates.noAbstract) fl |= 4;
    else if (u < rates.noAbstract + rates.shortAbstract) fl |= 8;
    flags[i] = fl;
    pos[i] = ar.next();
  }
  if (raw) {
    // Own stream, so the default profile's draws are untouched.
    const cr = rngFor(cfg.seed, 'citable');
    for (let i = 0; i < n; i++) {
      const p = flags[i] & 12 ? S2ORC_RAW.citableWithoutAbstract : S2ORC_RAW.citableWithAbstract;
      if (cr.next() >= p) flags[i] |= OBSCURE;
    }
  }
  return { year, topic, topic2, pos, fields, flags };
}

// ---- citations ---------------------------------------------------------------------------------------------


/**
 * 's2orc-raw': raw references per 2019 reference that survives into the prefiltered store (the counterpart of the
 * default profile's 1.18), measured on a 300,000-record corpus so that 2019 articles of the store average refs2019.
 */
const S2ORC_RAW_REFS_SCALE = 1.33;

/** Candidates an article draws inside its topic before citing the one nearest to it. */
const NEAR_CANDIDATES = 8;

function buildCitations(cfg: SynthConfig, w: World): Graph {
  const n = cfg.articles;
  const T = w.topicWords.length;
  // Calibrated so that the PREFILTERED store, not the raw shards, averages refs2019 for 2019 articles
  // (the prefilter drops ~15 % of cited articles).
  const raw = cfg.profile === 's2orc-raw';
  const refsRaw = cfg.refs2019 * (raw ? S2ORC_RAW_REFS_SCALE : 1.18);
  const r = rngFor(cfg.seed, 'citations');
  // Per topic / per field: members in chronological order and an urn holding one entry per citation
  // received (preferential attachment), both as growable typed arrays.
  const topicMembers = Array.from({ length: T }, () => new Growable(Uint32Array, 16));
  const topicUrn = Array.from({ length: T }, () => new Growable(Uint32Array, 16));
  const fieldMembers = FIELDS.map(() => new Growable(Uint32Array, 1024));
  const fieldUrn = FIELDS.map(() => new Growable(Uint32Array, 1024));
  const allUrn = new Growable(Uint32Array, 1 << 16);
  const outOff = shared(Uint32Array, n + 1);
  const outDst = new Growable(Uint32Array, raw ? Math.ceil(n * refsRaw * 0.3) : n * 16);
  const extOut = shared(Uint8Array, n);
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
    const obscure = (w.flags[i] & OBSCURE) !== 0;
    const want = Math.max(0, Math.round(mean * (obscure ? S2ORC_RAW.obscureRefs : 1) * Math.exp(0.45 * r.normal() - 0.101)));
    const t = w.topic[i];
    const f = w.topicField[t];
    chosen.clear();
    for (let tries = 0; chosen.size < want && tries < want * 3; tries++) {
      const u = r.next();
      let c: number;
      // 's2orc-raw': obscure records are only in reach of stray references, uniform over every earlier record.
      if (raw && r.next() < S2ORC_RAW.stray) c = i > 0 ? r.nextInt(i) : -1;
      else if (u < 0.62) c = near(topicMembers[t], topicUrn[t], w.pos[i]);
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
    if (!obscure) {
      topicMembers[t].push(i);
      fieldMembers[f].push(i);
    }
  }
  return { outOff, outDst: toShared(outDst.view()), extOut };
}

