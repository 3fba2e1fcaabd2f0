// The repository carries the paper's numbers itself (src/report/paper-numbers.json): every number equals the
// reference transcription in ../shared when present, and the repository's copy is what the loader reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadPaperNumbers, PAPER_NUMBERS_FILE } from '../../src/report/paper-numbers.ts';
import { paperTable1 } from '../../src/report/tables.ts';
import { FIELDS, FIELD_ABBREV } from '../../src/corpus/fields.ts';
import { REPO, SHARED } from '../helpers/shared.ts';

const REFERENCE = join(SHARED, 'reference', 'paper-numbers.json');
const TABLES = [
  'table1_dataset_level', 'table2_field_level_MAP', 'table3_mdcr', 'table4_candidate_types', 'table4_candidate_types_AVG',
  'table6_scidocs_cite', 'table7_field_level_nDCG', 'table8_field_level_R@30',
];

/** Every numeric leaf as 'path → value'. */
function leaves(x: unknown, path = '', out = new Map<string, number>()): Map<string, number> {
  if (typeof x === 'number') out.set(path, x);
  else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) leaves(v, `${path}/${k}`, out);
  return out;
}

test('the loader reads the repository copy; it lives under src/report, not ../shared', () => {
  assert.equal(PAPER_NUMBERS_FILE, join(REPO, 'src', 'report', 'paper-numbers.json'));
  const p = loadPaperNumbers();
  assert.deepEqual(p, JSON.parse(readFileSync(PAPER_NUMBERS_FILE, 'utf8')));
  assert.match(p.source.paper, /Medić.*Šnajder.*Large-scale Evaluation of Transformer-based Article Encoders/);
  for (const t of TABLES) assert.ok(t in p, `${t} present`);
  for (const t of TABLES) assert.ok(p.source.tables[t], `source names ${t}`);
  // Table 5 matches citebench's field list
  for (const f of FIELDS) assert.equal((p.fields as Record<string, string>)[FIELD_ABBREV[f]], f);
  // counts of every table (rows × columns as printed): 60 + 120 + 240 + 72 + 12 + 8 + 120 + 120
  const count = (t: string) => leaves((p as unknown as Record<string, unknown>)[t]).size;
  assert.deepEqual(TABLES.map(count), [60, 120, 240, 72, 12, 8, 120, 120]);
  // no source file under src/ points at ../shared
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  for (const f of walk(join(REPO, 'src')).filter((f) => f.endsWith('.ts'))) {
    assert.doesNotMatch(readFileSync(f, 'utf8'), /shared\/reference|\.\.\/\.\.\/\.\.\/shared/, `${f} reads ../shared`);
  }
});

test('every number equals ../shared/reference/paper-numbers.json', { skip: existsSync(REFERENCE) ? false : `${REFERENCE} is absent: nothing to compare with` }, () => {
  const ours = loadPaperNumbers() as unknown as Record<string, unknown>;
  const ref = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Record<string, unknown>;
  let compared = 0;
  for (const t of TABLES) {
    const a = leaves(ours[t]);
    const b = leaves(ref[t]);
    assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort(), `${t}: same cells`);
    for (const [k, v] of a) {
      assert.equal(v, b.get(k), `${t}${k}`);
      compared++;
    }
  }
  assert.equal(compared, 752);
  assert.deepEqual(loadPaperNumbers().fields, ref.fields);
});

test("the paper's Table 1 shows every model the paper reports, in the paper's order, as printed", () => {
  const p = loadPaperNumbers();
  const table = paperTable1(p, ['200k', '2M'], ['MAP', 'R@30']);
  const models = table.split('\n').slice(2).map((l) => l.split('|')[1].trim());
  assert.deepEqual(models, ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm']);
  assert.match(table, /\| bm25 \| 40\.4 \| 43\.0 \| 22\.5 \| 26\.9 \|/);
  assert.match(table, /\| aspire-bm \| 41\.4 \| 43\.3 \| 20\.4 \| 25\.2 \|/);
});
