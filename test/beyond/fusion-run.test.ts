/**
 * Fusion as a model kind: FusionRetriever over two retrievers (pool search and MDCR's candidate lists, tunable
 * parameters), and a `fusion` model in a run — read from YAML (errors at file:line [key]), priced by the dry run,
 * tuned on the validation split by the one tuner (its record in results.json), searched into cells and MDCR.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { dryRun, runExperiment } from '../../src/experiments/run.ts';
import { FusionRetriever } from '../../src/retrieval/fusion/retriever.ts';
import { fuseQuery, prepareQuery } from '../../src/retrieval/fusion/index.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';
import { InputError } from '../../src/util/errors.ts';
import { seedCorpusStage } from '../helpers/corpus-fixture.ts';

/** A retriever with a fixed score per document: lists best first; candidates scored, unknown ones at −100. */
class Fixed implements Retriever {
  readonly scoresCandidates = true;
  readonly fingerprint: string;
  constructor(readonly name: string, private readonly score: Map<number, number>) {
    this.fingerprint = name;
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    req.queries.forEach((_, q) => {
      const pool = req.candidates ? [...req.candidates[q]] : [...this.score.keys()];
      const list = pool.map((d) => [d, this.score.get(d) ?? -100] as const).sort((a, b) => b[1] - a[1]).slice(0, req.k);
      for (const [d, s] of list) {
        docs.push(d);
        scores.push(s);
      }
      offsets[q + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

const a = new Fixed('a', new Map([[1, 9], [2, 7], [3, 5], [4, 1]]));
const b = new Fixed('b', new Map([[3, 0.9], [5, 0.5], [1, 0.25], [6, -0.5]]));

test('FusionRetriever: inputs searched to depth and fused as fuseQuery fuses them; candidates scored by every input', async () => {
  const f = new FusionRetriever({ name: 'f', inputs: [{ name: 'a', retriever: a }, { name: 'b', retriever: b }], spec: { method: 'wsum', norm: 'min-max', params: { weights: [0.7, 0.3] } }, depth: 3 });
  const r = await f.search({ queries: Uint32Array.of(0), k: 10 });
  const { query, keys } = prepareQuery([{ keys: [1, 2, 3], scores: [9, 7, 5] }, { keys: [3, 5, 1], scores: [0.9, 0.5, 0.25] }]);
  const want = fuseQuery(query, { method: 'wsum', norm: 'min-max', params: { weights: [0.7, 0.3] } });
  assert.deepEqual(Array.from(r.docs), Array.from(want.order, (d) => keys[d]));
  assert.deepEqual(Array.from(r.scores), Array.from(want.order, (d) => Math.fround(want.scores[d])));
  // MDCR: each input scores the candidate list (all of it, whatever the depth), and the scores are fused.
  const c = await f.search({ queries: Uint32Array.of(0), k: 10, candidates: [Uint32Array.of(4, 6, 2, 5)] });
  assert.deepEqual([...c.docs].sort(), [2, 4, 5, 6]);
  assert.equal(f.scoresCandidates, true);
  // Tunable: the method's parameters, wsum's weights by input name.
  assert.deepEqual(f.tunable, { 'weight.a': 0.7, 'weight.b': 0.3 });
  const g = f.withParams({ 'weight.b': 0.9 });
  assert.deepEqual(g.tunable, { 'weight.a': 0.7, 'weight.b': 0.9 });
  assert.notEqual(g.fingerprint, f.fingerprint);
  const rrf = new FusionRetriever({ name: 'r', inputs: [{ name: 'a', retriever: a }, { name: 'b', retriever: b }], spec: { method: 'rrf', norm: 'none', params: {} }, depth: 3 });
  assert.deepEqual(rrf.tunable, { k: 60 });
  assert.deepEqual(rrf.withParams({ k: 10 }).tunable, { k: 10 });
});

const CONFIG = `name: fusion
seed: 7
corpus: {synthetic: {articles: 6000}}
k: 100
validation: {queries: 6}
models:
  bm25: {}
  bm25b: {kind: bm25, k1: 1.6, b: 0.9}
  rrf: {kind: fusion, inputs: [bm25, bm25b], method: rrf, norm: none, depth: 200, tune: {k: [5, 60]}}
  ws: {kind: fusion, inputs: [bm25, bm25b], method: wsum, norm: min-max, weights: [0.5, 0.5], depth: 200}
protocols:
  dataset: {queries: 6, pools: [800], repeats: 1}
  field: {queries: 4, pool: 1100, repeats: 1, fields: [Medicine, Biology]}
  mdcr: {}
`;

test('a fusion model in a run: YAML errors, dry run, tuning recorded in results.json, cells and MDCR', { timeout: 300_000 }, async () => {
  const bad = (from: string, to: string, re: RegExp) => assert.throws(() => parseConfig(CONFIG.replace(from, to), 'f.yaml'), (e: unknown) => e instanceof InputError && re.test(e.message), to);
  bad('weights: [0.5, 0.5]', 'weights: [0.5]', /^f\.yaml:10 \[models\.ws\.weights\]: 1 weight for 2 runs/);
  bad('method: rrf', 'method: combfoo', /^f\.yaml:9 \[models\.rrf\.method\]: unknown method 'combfoo'/);
  bad('depth: 200, tune', 'depth: 0, tune', /^f\.yaml:9 \[models\.rrf\.depth\]: must be a positive integer/);
  bad('inputs: [bm25, bm25b], method: wsum', 'inputs: [bm25, nope], method: wsum', /\[models\.ws\.inputs\.1\]: 'nope' is not a model configured above ws/);
  bad('tune: {k: [5, 60]}', 'tune: {phi: [0.5]}', /\[models\.rrf\.tune\.phi\]: unknown key/);

  const dir = mkdtempSync(join(tmpdir(), 'cb-fusion-run-'));
  try {
    const cfg = parseConfig(CONFIG, 'f.yaml', { work: join(dir, 'work'), results: join(dir, 'results') });
    assert.match(dryRun(cfg, { memoryBytes: 2 ** 34 }), /rrf \(fusion \(rrf, tuned, norm none\) of bm25 \+ bm25b\)/);
    await seedCorpusStage(cfg, cfg.work, { bm25: true });
    const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
    out.store.close();
    const t = out.results.tuning.find((x) => x.model === 'rrf')!;
    assert.deepEqual(t.params, { k: [5, 60] });
    assert.deepEqual(t.grid.map((g) => g.params.k), [5, 60]);
    assert.ok([5, 60].includes(t.chosen.k));
    const rrf = out.results.models.find((m) => m.name === 'rrf')!;
    assert.equal(rrf.kind, 'fusion');
    assert.equal(rrf.settings.k, t.chosen.k);
    assert.equal(rrf.settings.tuned, true);
    for (const m of ['rrf', 'ws']) assert.ok(out.results.cells.some((c) => c.model === m && c.split === 'test' && c.means.MAP > 0), `${m}: a test cell`);
    // MDCR: both inputs score candidate lists, so the fusions do.
    assert.deepEqual(Object.keys(out.results.mdcr!.results).sort(), ['bm25', 'bm25b', 'rrf', 'ws']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
