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
import { REPO, SHARED, skipNoShared } from '../helpers/shared.ts';

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

test('mdcr score --config: imported vectors (the embeddings kind) score as --embeddings does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-config-'));
  try {
    // Vectors for every paper of the data file but the last (a candidate without one ranks last), seeded.
    const ids = readFileSync(join(F, 'mdcr_data.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => String(JSON.parse(l).paper_id));
    let s = 7;
    const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const bench = JSON.parse(readFileSync(join(F, 'mdcr.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    const queries = new Set(Object.values(bench).flatMap((field) => Object.keys(field)));
    const lacking = ids.find((id) => !queries.has(id))!;
    writeFileSync(join(dir, 'v.jsonl'), ids.filter((id) => id !== lacking).map((id) => JSON.stringify({ doc_id: id, embedding: Array.from({ length: 8 }, rnd) })).join('\n') + '\n');
    writeFileSync(join(dir, 'models.yaml'), `models:\n  emb: { embeddings: ${join(dir, 'v.jsonl')}, distance: l2 }\n`);
    const flags = cli(['--embeddings', join(dir, 'v.jsonl'), '--distance', 'l2', '--out', join(dir, 'flags.json')]);
    assert.equal(flags.status, 0, flags.stderr);
    const cfg = cli(['--config', join(dir, 'models.yaml'), '--model', 'emb', '--out', join(dir, 'config.json')]);
    assert.equal(cfg.status, 0, cfg.stderr);
    assert.ok(readFileSync(join(dir, 'config.json')).equals(readFileSync(join(dir, 'flags.json'))));
    assert.match(flags.stderr, /1 candidate\(s\) have no vector/, 'the paper without a vector is a candidate');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mdcr score --config: a dense model and a re-ranker by it give the former scorer\'s bytes; --cache reuses the vectors', { skip: skipNoShared }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-config-'));
  try {
    const tiny = join(SHARED, 'models', 'tiny-scibert-random');
    writeFileSync(join(dir, 'models.yaml'), `models:\n  bm25x: { kind: bm25 }\n  tiny: { model: ${tiny} }\n  asp: { model: ${tiny}, pooling: aspire }\n  rr: { kind: rerank, first: bm25x, scorer: tiny }\n`);
    const score = (m: string, out: string) => cli(['--config', join(dir, 'models.yaml'), '--model', m, '--cache', join(dir, 'cache'), '--out', join(dir, out)]);
    for (const [m, expected] of [['tiny', 'l2'], ['asp', 'aspire'], ['rr', 'l2']] as const) {
      const p = score(m, `${m}.json`);
      assert.equal(p.status, 0, p.stderr);
      assert.ok(readFileSync(join(dir, `${m}.json`)).equals(readFileSync(join(F, `expected-${expected}.json`))), `${m}: scores differ from the former scorer's`);
      if (m === 'rr') assert.match(p.stderr, /tiny: 0 articles encoded now/, 'the re-ranker\'s scorer reads the cached vectors');
    }
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
