/**
 * MDCR scoring through the retrievers' candidate mode: `citebench mdcr score` gives, byte for byte, the scores
 * files the former pair scorer (its own L2 / inner product / best-sentence loop) wrote for the fixture in
 * fixtures/scoring (4 queries of configs/ci.yaml's MDCR test split, 96 pairs; expected-*.json were written by
 * that scorer before it was removed): BM25, and a random-weight encoder with L2, inner product and ASPIRE
 * sentence pooling. With --cache a second scoring reads the vectors back instead of encoding.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { REPO, SHARED, skipNoShared } from '../helpers/shared.ts';

const F = join(REPO, 'test/mdcr/fixtures/scoring');
const TINY = join(SHARED, 'models', 'tiny-scibert-random');
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli.ts'), 'mdcr', 'score', '--benchmark', join(F, 'mdcr.json'), '--data', join(F, 'mdcr_data.jsonl'), ...args], { cwd: REPO, encoding: 'utf8' });

test('mdcr score: BM25 through the candidate mode equals the former scorer byte for byte', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-cand-'));
  try {
    const p = cli(['--model', 'bm25', '--out', join(dir, 's.json')]);
    assert.equal(p.status, 0, p.stderr);
    assert.ok(readFileSync(join(dir, 's.json')).equals(readFileSync(join(F, 'expected-bm25.json'))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mdcr score: dense L2, inner product and ASPIRE through DenseRetriever equal the former scorer; --cache reads vectors back', { skip: skipNoShared }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-cand-'));
  try {
    const cache = join(dir, 'cache');
    for (const [name, extra] of [['l2', []], ['ip', ['--distance', 'ip']], ['aspire', ['--pooling', 'aspire']]] as const) {
      const out = join(dir, `${name}.json`);
      const p = cli(['--model', TINY, ...extra, '--cache', cache, '--out', out]);
      assert.equal(p.status, 0, p.stderr);
      assert.ok(readFileSync(out).equals(readFileSync(join(F, `expected-${name}.json`))), `${name}: scores differ from the former scorer's`);
    }
    // l2 and ip share one store (same model fingerprint); aspire pools otherwise: a store of its own.
    const stores = readdirSync(cache);
    assert.equal(stores.length, 2, stores.join(', '));
    const mtimes = () => stores.map((s) => readdirSync(join(cache, s)).map((f) => statSync(join(cache, s, f)).mtimeMs).join());
    const before = mtimes();
    const p = cli(['--model', TINY, '--cache', cache, '--out', join(dir, 'again.json')]);
    assert.equal(p.status, 0, p.stderr);
    assert.deepEqual(mtimes(), before, 'nothing re-encoded');
    assert.ok(readFileSync(join(dir, 'again.json')).equals(readFileSync(join(F, 'expected-l2.json'))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
