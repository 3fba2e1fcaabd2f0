/**
 * Published numbers of other work (report/published.ts) appear as a reference block with their source, never as a
 * difference to ours: the SPECTER2 model card's MDCR numbers beside Table 3 when a run has a SPECTER2 model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { renderMarkdownReport } from '../../src/report/markdown.ts';
import { loadPaperNumbers } from '../../src/report/paper-numbers.ts';
import { buildTables } from '../../src/report/report-tables.ts';

test('the SPECTER2 model card\'s MDCR numbers: a reference block after Table 3 with its source, only for a run with a SPECTER2 model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'citebench-published-'));
  try {
    const r = fabricateResults(dir, {
      queries: 10, pools: [2000], scale: 0.01, repeats: 1, models: ['bm25', 'specter', 'sp2'], fields: ['Art', 'Biology'],
      fieldQueries: 5, fieldPool: 1000, k: 20, cited: 3, seed: 5,
    });
    const paper = loadPaperNumbers();
    const ids = () => buildTables(r, paper).map((t) => t.id);
    assert.ok(!ids().includes('table3-specter2-card'), 'no SPECTER2 model: no block');
    r.models.find((m) => m.name === 'sp2')!.settings.model = 'specter2';
    const tables = buildTables(r, paper);
    const i = tables.findIndex((t) => t.id === 'table3-specter2-card');
    assert.equal(tables[i - 1].id, 'table3', 'right after Table 3');
    const t = tables[i];
    assert.equal(t.paperOnly, true, 'no legend of marks or differences');
    assert.match(t.intro, /not computed by citebench.*allenai\/specter2 model card.*not compared with ours/);
    const got = Object.fromEntries(t.rows.map((row) => [row.label, row.cells.map((c) => (c.kind === 'value' ? c.value : NaN))]));
    // The card's numbers (MAP, R@5), as published.
    assert.deepEqual(got, {
      BM25: [33.7, 28.5], SPECTER: [30.6, 25.5], SciNCL: [32.6, 27.3], 'SciRepEval-Adapters': [35.3, 29.6], 'SPECTER2 Base': [38.0, 32.4], 'SPECTER2-Adapters': [38.4, 33.0],
    });
    for (const row of t.rows) for (const c of row.cells) assert.ok(c.kind === 'value' && c.paper === undefined && !c.sig, 'never a difference or a mark');
    const md = renderMarkdownReport(r, paper);
    assert.match(md, /MDCR as the SPECTER2 model card publishes it/);
    assert.match(md, /SPECTER2-Adapters \| 38\.4 \| 33\.0/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
