// A run over an OpenAlex store built with `fields: topics` (OpenAlex Topics' 26 fields, not MAG's): the config's
// field level is parsed against the store's scheme (default: all 26; a MAG-only name is one line naming the key);
// the cells, topic-set ids and MDCR are over topic fields; results.json names the store's source and scheme; the
// Markdown and HTML reports' field tables have topic columns, say they are not the paper's fields and carry no
// paper value; the metadata row names OpenAlex. The store is a synthetic corpus written as OpenAlex works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { SYNTH_OPENALEX_DATE } from '../../src/corpus/synth-openalex.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { FIELDS, TOPIC_FIELDS, fieldAbbrev, schemeOfNames } from '../../src/corpus/fields.ts';
import { canonicalConfig, parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { readResults } from '../../src/report/results.ts';
import { writeReport } from '../../src/report/write-report.ts';
import { InputError } from '../../src/util/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-topics-run-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const store = join(dir, 'store');

const config = (fields: string, extra = '') => `name: topics
seed: 5
work: ${join(dir, 'work')}
results: ${join(dir, 'results')}
corpus: { store: ${store} }
k: 100
models: { bm25: {} }
protocols:
  field:
    queries: 3
    pool: 400
    repeats: 2
${fields}${extra}`;

test('fields: one abbreviation names one field across both schemes; the names they share stand in the same order', () => {
  // What lets ids and file names (field/<abbrev>/r1) and MDCR's field order do without the scheme.
  const byAbbrev = new Map<string, string>();
  for (const f of [...FIELDS, ...TOPIC_FIELDS]) {
    assert.ok(!byAbbrev.has(fieldAbbrev(f)) || byAbbrev.get(fieldAbbrev(f)) === f, `${fieldAbbrev(f)} names ${byAbbrev.get(fieldAbbrev(f))} and ${f}`);
    byAbbrev.set(fieldAbbrev(f), f);
  }
  const shared = (a: readonly string[], b: readonly string[]) => a.filter((f) => b.includes(f));
  assert.deepEqual(shared(FIELDS, TOPIC_FIELDS), shared(TOPIC_FIELDS, FIELDS));
  assert.equal(schemeOfNames(['Medicine', 'Chemistry']), 'mag');
  assert.equal(schemeOfNames(['Medicine', 'Neuroscience']), 'topics');
  assert.equal(schemeOfNames(['Medicine', 'Astrology']), 'mag', 'a name of neither scheme: an unknown MAG field');
});

test('setup: synthetic OpenAlex works built with the topics field scheme', { timeout: 300_000 }, async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 2500, seed: 7, threads: 1, format: 'openalex' }, join(dir, 'works'));
  const s = await buildCorpusStore({ input: join(dir, 'works'), out: store, prefilter: PAPER_PREFILTER, openalex: { fields: 'topics' } });
  assert.equal(s.source.fieldScheme, 'topics');
});

test('config: the field level is parsed against the store\'s scheme; MAG configs keep their identity', () => {
  const all = parseConfig(config(''), 'x.yaml');
  assert.deepEqual(all.protocols.field!.fields, [...TOPIC_FIELDS], "default 'all': the 26 topic fields in their order");
  assert.equal(all.corpus.fieldScheme, 'topics');
  const named = parseConfig(config('    fields: [PhyA, Agricultural and Biological Sciences, medicine]\n'), 'x.yaml');
  assert.deepEqual(named.protocols.field!.fields, ['Physics and Astronomy', 'Agricultural and Biological Sciences', 'Medicine']);
  for (const [name, at] of [['Art', 0], ['Bio', 0], ['Physics', 1]] as const) {
    const fields = at === 0 ? `[${name}]` : `[Medicine, ${name}]`;
    assert.throws(() => parseConfig(config(`    fields: ${fields}\n`), 'x.yaml'), (e: Error) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, new RegExp(`^x\\.yaml:13 \\[protocols\\.field\\.fields\\.${at}\\]: '${name}' is not a field of this store \\(.*\\): its fields are OpenAlex Topics' 26`));
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
  }
  // A synthetic corpus is MAG's: its default is the 19 fields, and the resolved config has no scheme key.
  const syn = parseConfig(config('').replace(`{ store: ${store} }`, '{ synthetic: { articles: 100 } }'), 'x.yaml');
  assert.deepEqual(syn.protocols.field!.fields, [...FIELDS]);
  assert.ok(!canonicalConfig(syn).includes('fieldScheme'));
});

test('citebench run on a topics store: topic-field cells and MDCR, the source in results.json, reports without paper values', { timeout: 600_000 }, async () => {
  const cfg = parseConfig(config('    fields: [Medicine, PhyA, AgBio]\n', '  mdcr: {}\n'), join(dir, 'topics.yaml'));
  const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
  out.store.close();
  const r = readResults(cfg.results);

  assert.deepEqual(r.corpus.source, { format: 'openalex', name: 'OpenAlex works', release: SYNTH_OPENALEX_DATE, fieldScheme: 'topics' });
  // Built from `citebench synth` output (its synth.json): a synthetic corpus, never "real data", though given as a store.
  assert.equal(r.corpus.kind, 'synthetic');
  assert.deepEqual(r.corpus.synthetic, { articles: 2500, seed: 7, generator: 'citebench synth v1' });
  assert.doesNotMatch(out.report, /real data/);
  assert.match(out.report, /\*\*Synthetic corpus\.\*\*/);
  assert.match(out.report, /A synthetic corpus generated in this form \(OpenAlex works snapshot of/);
  const fields = new Set(r.cells.filter((c) => c.protocol === 'field').map((c) => c.field));
  assert.deepEqual([...fields].sort(), ['Agricultural and Biological Sciences', 'Medicine', 'Physics and Astronomy']);
  for (const a of ['Med', 'PhyA', 'AgBio']) assert.ok(existsSync(join(cfg.results, 'cells', 'bm25', 'field', a, 'r1.json')), `cells/bm25/field/${a}/r1.json`);
  assert.deepEqual(Object.keys(r.fieldRepeats).sort(), ['AgBio', 'Med', 'PhyA']);
  // MDCR over the topic fields, in the scheme's order; the build report says evaluate.py cannot read it.
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(cfg.results, 'mdcr', 'mdcr_test.json'), 'utf8'))), ['Agricultural and Biological Sciences', 'Medicine', 'Physics and Astronomy']);
  assert.deepEqual(r.mdcr!.results.bm25.all.fields.map((f) => f.field), ['Agricultural and Biological Sciences', 'Medicine', 'Physics and Astronomy']);
  assert.ok(r.mdcr!.notes.some((n) => /OpenAlex Topics fields, not MAG's: the official evaluate\.py cannot read/.test(n)), r.mdcr!.notes.join('\n'));

  // Markdown: the source said before the tables, topic columns, no paper table or value beside them.
  const md = out.report;
  assert.match(md, /OpenAlex works snapshot of \d{4}-\d\d-\d\d; fields: OpenAlex Topics' 26 fields — not MAG's/);
  const t2 = md.slice(md.indexOf('## Table 2'), md.indexOf('\n## ', md.indexOf('## Table 2') + 1));
  assert.match(t2, /^## Table 2[^\n]*OpenAlex Topics fields/);
  assert.match(t2, /not comparable with the paper's MAG fields/);
  assert.match(t2, /\| model \| AgBio \| Med \| PhyA \| AVG \|/);
  assert.ok(!/paper/i.test(t2.replace(/the paper's MAG fields|the paper's values are not shown/g, '')), `no paper values in Table 2:\n${t2}`);
  assert.ok(!md.includes("The paper's Table 2"), "the paper's own field table does not follow");
  assert.ok(!md.includes("The paper's Table 3"), "nor the paper's MDCR table");

  // HTML: the metadata row names OpenAlex; field tables have topic columns and no paper values; Table 5 the topic abbreviations.
  const rep = await writeReport(cfg.results, { out: join(dir, 'report'), pdf: false, log: () => {} });
  const html = readFileSync(rep.html, 'utf8');
  assert.match(html, /<dt>corpus<\/dt><dd><b>synthetic<\/b> \(2500 generated, seed 7, citebench synth v1\)/);
  assert.doesNotMatch(html, /real data/);
  assert.match(html, /A synthetic corpus generated in this form \(OpenAlex works snapshot of [\d-]+; fields: OpenAlex Topics/);
  for (const id of ['table2', 'table7', 'table8', 'table3']) {
    const sec = html.slice(html.indexOf(`<section class="table" id="${id}"`), html.indexOf('</section>', html.indexOf(`<section class="table" id="${id}"`)));
    assert.ok(sec.length > 0, id);
    assert.ok(sec.includes('OpenAlex Topics fields'), `${id} says its fields`);
    assert.ok(!sec.includes('class="pp"'), `${id}: no paper value`);
    assert.ok(sec.includes('PhyA') && !sec.includes('>Bio<'), `${id}: topic columns`);
  }
  const t5 = html.slice(html.indexOf('<section class="table" id="table5"'), html.indexOf('</section>', html.indexOf('<section class="table" id="table5"')));
  assert.ok(t5.includes('>AgBio<') && t5.includes('Health Professions') && !t5.includes('>Geol<'), 'Table 5: the topic fields');
});
