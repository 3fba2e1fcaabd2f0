/**
 * Sentence counts of ASPIRE's splitter (src/retrieval/dense/sentences.ts) on the shared REAL abstracts, for the
 * table in docs/dense.md.
 *   node --import tsx bench/dense/sentence-counts.ts [--splitter FILE.ts] [--peer SENTENCES.jsonl]
 *        [--abstracts-out FILE.jsonl] [--diff N]
 * --splitter    another sentences.ts (e.g. an older one from `git show REV:src/retrieval/dense/sentences.ts`)
 * --abstracts-out  the abstracts, one JSON string a line, in the order the peer must answer them
 * --peer        bench/dense/sentence_peer.py's output for those abstracts: its counts and the agreement
 * --diff N      print the first N abstracts where the splitter and the peer disagree
 * Abstracts: the S2ORC sample's non-empty abstracts (one per record) and the distinct non-empty abstracts of
 * the SciRepEval sample's .json files (fos_small: papers; specter_small: query, pos and neg of each triplet).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const SHARED = resolve(import.meta.dirname, '../../../shared/data');

function s2orc(): string[] {
  const lines = readFileSync(join(SHARED, 's2orc-sample/metadata.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  return lines.map((l) => JSON.parse(l).abstract as string | null).filter((a): a is string => !!a && !!a.trim());
}

function scirepeval(): string[] {
  const seen = new Set<string>();
  const add = (a: unknown) => {
    if (typeof a === 'string' && a.trim()) seen.add(a);
  };
  for (const r of JSON.parse(readFileSync(join(SHARED, 'scirepeval-sample/fos_small.json'), 'utf8'))) add(r.abstract);
  for (const t of JSON.parse(readFileSync(join(SHARED, 'scirepeval-sample/specter_small.json'), 'utf8'))) {
    for (const k of ['query', 'pos', 'neg']) add(t[k]?.abstract);
  }
  return [...seen];
}

function stats(counts: number[]) {
  const sorted = [...counts].sort((a, b) => a - b);
  const n = sorted.length;
  const total = sorted.reduce((a, b) => a + b, 0);
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { abstracts: n, total, mean: +(total / n).toFixed(2), median, single: sorted.filter((c) => c === 1).length, max: sorted[n - 1] };
}

const { values } = parseArgs({
  options: { splitter: { type: 'string' }, peer: { type: 'string' }, 'abstracts-out': { type: 'string' }, diff: { type: 'string' } },
});
const mod = await import(values.splitter ? pathToFileURL(resolve(values.splitter)).href : '../../src/retrieval/dense/sentences.ts');
const split = mod.splitSentences as (t: string) => string[];

const sets = { s2orc: s2orc(), scirepeval: scirepeval() };
const all = [...sets.s2orc, ...sets.scirepeval];
if (values['abstracts-out']) writeFileSync(values['abstracts-out'], all.map((a) => JSON.stringify(a)).join('\n') + '\n');

const ours = all.map(split);
const peer: string[][] | undefined = values.peer
  ? readFileSync(values.peer, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l))
  : undefined;
if (peer && peer.length !== all.length) throw new Error(`${values.peer}: ${peer.length} lines for ${all.length} abstracts`);

let from = 0;
for (const [name, abs] of Object.entries(sets)) {
  const idx = abs.map((_, i) => from + i);
  from += abs.length;
  const row: Record<string, unknown> = { set: name, splitter: values.splitter ?? 'src', ...stats(idx.map((i) => ours[i].length)) };
  if (peer) {
    row.peer = stats(idx.map((i) => peer[i].length));
    row.sameCount = idx.filter((i) => peer[i].length === ours[i].length).length;
    row.sameSentences = idx.filter((i) => JSON.stringify(peer[i]) === JSON.stringify(ours[i])).length;
  }
  console.log(JSON.stringify(row));
}
if (peer && values.diff) {
  let shown = 0;
  for (let i = 0; i < all.length && shown < Number(values.diff); i++) {
    if (JSON.stringify(peer[i]) === JSON.stringify(ours[i])) continue;
    shown++;
    console.log(`\n#${i} ours ${ours[i].length}, peer ${peer[i].length}`);
    const a = new Set(ours[i]);
    const b = new Set(peer[i]);
    for (const s of ours[i]) if (!b.has(s)) console.log(`  ours: ${s}`);
    for (const s of peer[i]) if (!a.has(s)) console.log(`  peer: ${s}`);
  }
}
