/**
 * Regenerate test/mdcr/fixtures/official/ (development only, not run by tests): an MDCR test split that
 * `citebench mdcr build` writes over all 19 fields (a synthetic corpus, BM25 plus two ranked-list runs named
 * scincl and specter, so every key evaluate.py reads holds candidates), its BM25 scores from `citebench mdcr
 * score`, and — when a copy of MDCR's evaluate.py is given — the golden text that evaluate.py prints for them.
 *
 *   node --import tsx scripts/dev/make-mdcr-official-fixture.ts [EVALUATE_PY]
 *
 * The golden is printed by scripts/dev/evaluate-py.py (evaluate.py under a real pytrec_eval when one is
 * installed, else the stand-in beside it); the command is run inside the fixture folder so the header line names
 * the files as `mdcr_test.json` and `scores_bm25.json`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIELD_ABBREV } from '../../src/corpus/fields.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'test', 'mdcr', 'fixtures', 'official');
const work = mkdtempSync(join(tmpdir(), 'cb-mdcr-fixture-'));
const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli.ts'), ...args], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`citebench ${args.join(' ')}: ${r.stderr}`);
  return r;
};
try {
  cli(['synth', '--articles', '120000', '--seed', '5', '--out', join(work, 'shards')]);
  cli(['corpus', 'build', '--input', join(work, 'shards'), '--out', join(work, 'store')]);
  cli(['bm25', 'index', '--corpus', join(work, 'store'), '--out', join(work, 'bm25'), '--threads', '1']);
  const common = ['--corpus', join(work, 'store'), '--queries-per-field', '2', '--pool-size', '1000', '--out', join(work, 'mdcr')];
  cli(['mdcr', 'build', ...common, '--write-plan']);
  // Two "models" that rank each pool in a fixed order: reversed, and by a hash of the id (any ranking will do).
  const hash = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
  for (const split of ['test', 'val']) {
    for (const f of Object.values(FIELD_ABBREV)) {
      const plan = (k: string) => readFileSync(join(work, 'mdcr', 'plan', split, `${f}.${k}.txt`), 'utf8').trim().split('\n');
      const qs = plan('queries');
      const pool = plan('pool');
      const orders = { scincl: [...pool].reverse(), specter: [...pool].sort((a, b) => hash(a) - hash(b) || (a < b ? -1 : 1)) };
      for (const [name, order] of Object.entries(orders)) {
        mkdirSync(join(work, 'runs', name, split), { recursive: true });
        const lines = qs.flatMap((q) => order.filter((d) => d !== q).slice(0, 400).map((d, r) => `${q} Q0 ${d} ${r + 1} ${-r} ${name}\n`));
        writeFileSync(join(work, 'runs', name, split, `${f}.trec`), lines.join(''));
      }
    }
  }
  const runs = ['scincl', 'specter'].flatMap((n) => ['--run', `${n}=${join(work, 'runs', n, '{split}', '{field}.trec')}`]);
  cli(['mdcr', 'build', ...common, '--bm25-index', join(work, 'bm25'), ...runs, '--threads', '1']);
  mkdirSync(out, { recursive: true });
  copyFileSync(join(work, 'mdcr', 'mdcr_test.json'), join(out, 'mdcr_test.json'));
  cli(['mdcr', 'score', '--benchmark', join(out, 'mdcr_test.json'), '--data', join(work, 'mdcr', 'mdcr_test_data.jsonl'), '--model', 'bm25', '--out', join(out, 'scores_bm25.json')]);
  const evaluatePy = process.argv[2];
  if (evaluatePy) {
    const python = process.env.PYTHON ?? 'python3';
    const r = spawnSync(python, [join(root, 'scripts', 'dev', 'evaluate-py.py'), resolve(evaluatePy), '--benchmark_file', 'mdcr_test.json', '--scores_file', 'scores_bm25.json'], { cwd: out, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`evaluate.py: ${r.stderr}`);
    writeFileSync(join(out, 'evaluate-py.golden.txt'), r.stdout);
    process.stderr.write(r.stderr);
  }
  console.log(`wrote ${out}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
