// A store built from a folder `citebench synth` wrote — v2020 shards as much as OpenAlex works — records the
// generator (its synth.json), so a run on that store is reported as a synthetic corpus, never as real data; the
// same shards without the generator's file are data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { synthesize, SYNTH_DEFAULTS, SYNTH_VERSION } from '../../src/corpus/synth.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { prepareCorpus } from '../../src/experiments/corpus-stage.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-synth-marker-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

async function sourceOf(input: string, out: string) {
  await buildCorpusStore({ input, out, prefilter: PAPER_PREFILTER, threads: 1 });
  const store = CorpusStore.open(out);
  try {
    return store.meta.source;
  } finally {
    store.close();
  }
}

test('v2020 shards from citebench synth: the store says synthetic, and a run on it reports a synthetic corpus; copied without synth.json they are data', async () => {
  const syn = join(dir, 'syn');
  await synthesize({ ...SYNTH_DEFAULTS, articles: 1500, seed: 3, shardSize: 500, threads: 1 }, syn);
  const generator = { articles: 1500, seed: 3, generator: `citebench synth v${SYNTH_VERSION}` };
  assert.deepEqual((await sourceOf(syn, join(dir, 'syn-store')))?.synthetic, generator);

  const cfg = parseConfig(`corpus: { store: ${join(dir, 'syn-store')} }\nmodels: { bm25: {} }\nprotocols: { dataset: { queries: 5, pools: [50], repeats: 1 } }\nwork: ${join(dir, 'work')}\n`, 'marker.yaml');
  const { store, info } = await prepareCorpus(cfg, () => {});
  store.close();
  assert.equal(info.kind, 'synthetic');
  assert.deepEqual(info.synthetic, generator);

  // The same shards elsewhere, without the generator's file (or with a synth.json of someone else's): data.
  for (const [name, marker] of [['plain', undefined], ['other', '{"generator": "someone-else", "articles": 1500, "seed": 3}']] as const) {
    const copy = join(dir, name);
    mkdirSync(copy);
    for (const f of readdirSync(syn).filter((f) => f.endsWith('.gz'))) copyFileSync(join(syn, f), join(copy, f));
    if (marker) writeFileSync(join(copy, 'synth.json'), marker);
    const source = await sourceOf(copy, join(dir, `${name}-store`));
    assert.equal(source?.format, 'v2020');
    assert.equal(source?.synthetic, undefined, name);
  }
});
