/**
 * `citebench mdcr score --config FILE --model NAME`: any configured model scores MDCR pairs through its kind's
 * entry (built on the data file's papers, its needs prepared there), with no code of its own in the command —
 * here a re-ranker whose scorer is BM25 (its candidate scores are BM25's, byte for byte) and a fusion of two BM25
 * models (min-max + sum: each query's two score lists normalised and added), on the fixture of
 * score-candidates.test.ts; and `--model bm25`'s flags checked by the bm25 kind's entry, said of the flag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { REPO } from '../helpers/shared.ts';

const F = join(REPO, 'test/mdcr/fixtures/scoring');
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli.ts'), 'mdcr', 'score', '--benchmark', join(F, 'mdcr.json'), '--data', join(F, 'mdcr_data.jsonl'), ...args], { cwd: REPO, encoding: 'utf8' });

const CONFIG = `# only models: are read
name: tiny
models:
  bm25: { k1: 0.9, b: 0.4 }
  bm25-k12: { kind: bm25, k1: 1.2 }
  nav: { kind: navigation, first: bm25 }
  rr: { kind: rerank, first: bm25, depth: 5, scorer: bm25 }
  fused: { kind: fusion, inputs: [bm25, bm25-k12], method: sum, norm: min-max }
  tuned: { kind: bm25, tune: true }
`;

test('mdcr score --config: a re-ranker and a fusion score the pairs through their kinds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-config-'));
  try {
    const cfg = join(dir, 'models.yaml');
    writeFileSync(cfg, CONFIG);
    const out = (n: string) => join(dir, `${n}.json`);
    for (const m of ['bm25', 'bm25-k12', 'rr', 'fused']) {
      const p = cli(['--config', cfg, '--model', m, '--out', out(m)]);
      assert.equal(p.status, 0, `${m}: ${p.stderr}`);
    }
    // --config's bm25 is --model bm25 (the former scorer's bytes).
    assert.ok(readFileSync(out('bm25')).equals(readFileSync(join(F, 'expected-bm25.json'))));
    // The re-ranker scores every candidate (not only the first stage's top 5) by its scorer: BM25's scores.
    assert.ok(readFileSync(out('rr')).equals(readFileSync(out('bm25'))), 're-ranking by bm25 gives bm25\'s scores');
    const k12 = cli(['--model', 'bm25', '--k1', '1.2', '--out', out('flags-k12')]);
    assert.equal(k12.status, 0, k12.stderr);
    assert.ok(readFileSync(out('flags-k12')).equals(readFileSync(out('bm25-k12'))), '--k1 1.2 is the config\'s k1: 1.2');
    assert.ok(!readFileSync(out('bm25-k12')).equals(readFileSync(out('bm25'))), 'k1 changes the scores');

    // Fusion: per query, each input's candidate scores min-max normalised, then added.
    const read = (n: string) => JSON.parse(readFileSync(out(n), 'utf8')) as Record<string, number>;
    const [a, b, fused] = [read('bm25'), read('bm25-k12'), read('fused')];
    assert.deepEqual(Object.keys(fused), Object.keys(a));
    const byQuery = new Map<string, string[]>();
    for (const key of Object.keys(a)) {
      const q = key.slice(0, key.indexOf('_'));
      byQuery.set(q, [...(byQuery.get(q) ?? []), key]);
    }
    assert.ok(byQuery.size >= 2);
    let spread = 0;
    for (const keys of byQuery.values()) {
      const norm = (s: Record<string, number>) => {
        const v = keys.map((k) => s[k]);
        const [lo, hi] = [Math.min(...v), Math.max(...v)];
        return v.map((x) => (hi > lo ? (x - lo) / (hi - lo) : 0));
      };
      const [na, nb] = [norm(a), norm(b)];
      keys.forEach((k, i) => {
        assert.ok(Math.abs(fused[k] - (na[i] + nb[i])) < 1e-5, `${k}: fused ${fused[k]}, expected ${na[i] + nb[i]}`);
        spread = Math.max(spread, fused[k]);
      });
    }
    assert.ok(spread > 1, 'the fused scores add two normalised lists');

    // What a kind cannot do on the data file's papers is said, naming the config and model.
    const nav = cli(['--config', cfg, '--model', 'nav', '--out', out('nav')]);
    assert.notEqual(nav.status, 0);
    assert.match(nav.stderr, /models\.nav: a navigation model navigates the citation graph, which an MDCR data file does not have/);
    const tuned = cli(['--config', cfg, '--model', 'tuned', '--out', out('tuned')]);
    assert.notEqual(tuned.status, 0);
    assert.match(tuned.stderr, /models\.tuned: tunes on a validation split, which mdcr score does not have/);
    const none = cli(['--config', cfg, '--model', 'nope', '--out', out('nope')]);
    assert.match(none.stderr, /--model nope: .*models\.yaml configures no such model \(have: bm25, bm25-k12, nav, rr, fused, tuned\)/);
    const flag = cli(['--config', cfg, '--model', 'bm25', '--k1', '2', '--out', out('x')]);
    assert.match(flag.stderr, /--k1 is a flag of a model without --config/);
    for (const p of [nav, tuned, none, flag]) assert.doesNotMatch(p.stderr, /\n\s+at /, 'one line, no stack trace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mdcr score --model bm25: its flags are checked by the bm25 kind, the error names the flag', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-config-'));
  try {
    const k1 = cli(['--model', 'bm25', '--k1=-1', '--out', join(dir, 'x.json')]);
    assert.notEqual(k1.status, 0);
    assert.match(k1.stderr, /--k1 must be a number ≥ 0, got -1/);
    const b = cli(['--model', 'bm25', '--b', '1.5', '--out', join(dir, 'x.json')]);
    assert.match(b.stderr, /--b must be a number in \[0, 1\], got 1\.5/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
