/**
 * Measures, on the real S2ORC sample (../shared/data/s2orc-sample/metadata.jsonl), the shares of records failing
 * each prefilter rule of the paper and their joint pattern: the calibration of `synth --profile s2orc`
 * (src/corpus/synth.ts, S2ORC_SURVIVAL). Rule 4 counts each record's own S2ORC inbound list (record scope), the
 * only meaningful count on a sample whose citations point outside it.
 *
 *   node --import tsx scripts/dev/s2orc-survival.ts [metadata.jsonl]
 *   node --import tsx scripts/dev/s2orc-survival.ts --synth N [SCRATCH]   # the same shares for `synth --profile s2orc-raw`
 *
 * The second form synthesizes N records with the profile in a scratch folder, builds a store with the paper's
 * prefilter (corpus scope: the whole record set is there) and prints what each rule removed and the mean
 * in-store references of 2019 articles (the profile's target is refs2019 = 29).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { FAIL_ABSTRACT, FAIL_TITLE, FAIL_YEAR, PAPER_PREFILTER, formatPrefilterReport, textRuleFlags } from '../../src/corpus/prefilter.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';

if (process.argv[2] === '--synth') {
  const n = Number(process.argv[3]);
  const dir = process.argv[4] ?? mkdtempSync(join(tmpdir(), 'cb-survival-'));
  const t0 = performance.now();
  await synthesize({ ...SYNTH_DEFAULTS, articles: n, seed: 1, profile: 's2orc-raw' }, join(dir, 'shards'));
  const t1 = performance.now();
  const b = await buildCorpusStore({ input: join(dir, 'shards'), out: join(dir, 'store'), prefilter: PAPER_PREFILTER });
  console.log(`synth ${((t1 - t0) / 1000).toFixed(1)} s, build ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  console.log(formatPrefilterReport(b.prefilter!));
  console.log(`kept ${((100 * b.articles) / n).toFixed(1)} %`);
  for (const [rule, k] of Object.entries(b.prefilter!.failing)) console.log(`  failing ${rule}: ${((100 * k) / n).toFixed(1)} %`);
  const s = CorpusStore.open(join(dir, 'store'));
  let q = 0, refs = 0;
  for (let i = 0; i < s.size; i++) if (s.years[i] === 2019) { q++; refs += s.outbound(i).length; }
  console.log(`2019 articles in the store: ${q}, mean in-store references ${(refs / q).toFixed(2)}`);
  s.close();
  if (!process.argv[4]) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const file = process.argv[2] ?? join(import.meta.dirname, '../../../shared/data/s2orc-sample/metadata.jsonl');
const recs = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const n = recs.length;
const pct = (k: number) => `${k} (${((100 * k) / n).toFixed(1)} %)`;
let noYear = 0, noTitle = 0, noAbs = 0, shortAbs = 0, few = 0, kept = 0;
const inbound: number[] = [];
const byAbstract = { with: { n: 0, few: 0, noYear: 0 }, without: { n: 0, few: 0, noYear: 0 } };
for (const r of recs) {
  const f = textRuleFlags(PAPER_PREFILTER, r.title ?? '', r.abstract ?? '', r.year ?? undefined);
  const inb = new Set(r.inbound_citations).size;
  inbound.push(inb);
  if (f & FAIL_YEAR) noYear++;
  if (f & FAIL_TITLE) noTitle++;
  if (r.abstract === null || r.abstract.trim() === '') noAbs++;
  else if (f & FAIL_ABSTRACT) shortAbs++;
  const fewC = inb < PAPER_PREFILTER.minCitations;
  if (fewC) few++;
  if (f === 0 && !fewC) kept++;
  const g = f & FAIL_ABSTRACT ? byAbstract.without : byAbstract.with;
  g.n++;
  if (fewC) g.few++;
  if (f & FAIL_YEAR) g.noYear++;
}
console.log(`${n} records of ${file}`);
console.log(`no year            ${pct(noYear)}`);
console.log(`empty title        ${pct(noTitle)}`);
console.log(`no abstract        ${pct(noAbs)}`);
console.log(`abstract < 30      ${pct(shortAbs)} (present but short)`);
console.log(`< 3 inbound        ${pct(few)}`);
console.log(`kept (all rules)   ${pct(kept)}`);
for (const [k, g] of Object.entries(byAbstract)) {
  console.log(`  ${k} a usable abstract: ${g.n}, of which < 3 inbound ${g.few} (${((100 * g.few) / g.n).toFixed(1)} %), no year ${g.noYear}`);
}
const hist = new Map<number, number>();
for (const x of inbound) hist.set(Math.min(x, 10), (hist.get(Math.min(x, 10)) ?? 0) + 1);
console.log('inbound list length (10 = 10 or more):', [...hist.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`).join(' '));
