// `synth --profile openalex` (src/corpus/synth-openalex.ts) writes the 's2orc-raw' corpus of the same seed as
// OpenAlex works in a snapshot's layout: built with every work kept, its store holds the same articles, texts,
// years and citations as the v2020 shards' store, and fields only where the work kept its concepts; the manifest
// counts the files' records; the default options leave out and count the works of other types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { FILES } from '../../src/corpus/store-format.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { SYNTH_OPENALEX_DATE } from '../../src/corpus/synth-openalex.ts';
import { REPO } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-synth-oa-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const cfg = { ...SYNTH_DEFAULTS, articles: 2000, seed: 11, shardSize: 800, profile: 's2orc-raw' as const, threads: 1 };

test('synthetic OpenAlex works: the s2orc-raw corpus of the same seed, in a snapshot layout with its manifest', async () => {
  const s = await synthesize({ ...cfg, format: 'openalex' }, join(dir, 'oa'));
  assert.deepEqual(s.shards.map((f) => f.slice(join(dir, 'oa').length + 1)), [0, 1, 2].map((k) => `updated_date=${SYNTH_OPENALEX_DATE}/part_000${k}.gz`));
  const manifest = JSON.parse(readFileSync(join(dir, 'oa', 'manifest'), 'utf8'));
  for (const [k, e] of manifest.entries.entries()) {
    assert.equal(e.meta.record_count, gunzipSync(readFileSync(s.shards[k])).toString('utf8').trim().split('\n').length);
  }
  assert.equal(manifest.meta.record_count, 2000);
  await synthesize(cfg, join(dir, 'v2020'));

  const everything = { types: 'all' as const, keepParatext: true, keepRetracted: true };
  const a = await buildCorpusStore({ input: join(dir, 'v2020'), out: join(dir, 'st-v2020'), prefilter: null });
  const b = await buildCorpusStore({ input: join(dir, 'oa'), out: join(dir, 'st-oa'), prefilter: null, openalex: everything });
  assert.equal(b.articles, a.articles);
  assert.equal(b.citations, a.citations);
  // Same order (ids W2… + 10 digits and 9-digit paper ids order alike), so the same columns but ids and fields.
  for (const f of [FILES.year, FILES.inputInbound, FILES.outOff, FILES.outDst, FILES.inOff, FILES.inSrc, FILES.text, FILES.textOff]) {
    assert.deepEqual(readFileSync(join(dir, 'st-oa', f)), readFileSync(join(dir, 'st-v2020', f)), f);
  }
  const sa = CorpusStore.open(join(dir, 'st-v2020'));
  const sb = CorpusStore.open(join(dir, 'st-oa'));
  let without = 0;
  for (let i = 0; i < sa.size; i++) {
    assert.equal(sb.id(i), `W${2_000_000_000 + Number(sa.id(i))}`);
    // A work has its record's MAG fields as concepts scored ≥ 0.3, or (11 % of them) no concepts at all.
    if (sb.fields[i] !== sa.fields[i]) {
      assert.equal(sb.fields[i], 0, sb.id(i));
      without++;
    }
  }
  sa.close();
  sb.close();
  assert.ok(without > 0.05 * a.articles && without < 0.2 * a.articles, `${without} works without concepts`);

  // The defaults leave out other types, paratext and retracted works, counted; the manifest dates the snapshot.
  const d = await buildCorpusStore({ input: join(dir, 'oa'), out: join(dir, 'st-oa-default'), prefilter: null });
  const left = Object.values(d.source.openalex!.excluded.types).reduce((x, y) => x + y, 0) + d.source.openalex!.excluded.retracted;
  assert.ok(left > 0.04 * 2000 && left < 0.12 * 2000, `${left} left out`);
  assert.equal(d.articles + left, b.articles);
  assert.equal(d.source.release, SYNTH_OPENALEX_DATE);
  assert.equal(d.source.releaseFrom, 'manifest');
});

test('citebench synth --profile openalex: the same works from the command line; an unknown profile is one line', () => {
  const out = join(dir, 'cli');
  const r = spawnSync(process.execPath, cliArgv(['synth', '--articles', '2000', '--seed', '11', '--shard-size', '800', '--profile', 'openalex', '--threads', '1', '--out', out]), { encoding: 'utf8', cwd: REPO });
  assert.equal(r.status, 0, r.stderr);
  for (let k = 0; k < 3; k++) {
    const f = `updated_date=${SYNTH_OPENALEX_DATE}/part_000${k}.gz`;
    assert.deepEqual(readFileSync(join(out, f)), readFileSync(join(dir, 'oa', f)), f);
  }
  const bad = spawnSync(process.execPath, cliArgv(['synth', '--articles', '10', '--seed', '1', '--profile', 'nope', '--out', join(dir, 'x')]), { encoding: 'utf8', cwd: REPO });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr.trim(), /^[^\n]*--profile nope: unknown profile \(known: s2orc-raw, openalex\)$/);
});
