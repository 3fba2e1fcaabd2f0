// A killed store build resumes from its checkpoint and writes the same bytes as an uninterrupted one — every file,
// meta.json (validation report, OpenAlex exclusions) included: stopped after each checkpoint in turn, and killed
// (SIGKILL) at whatever point a child process had reached. A changed input is read afresh, not resumed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { spawn } from 'node:child_process';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { REPO } from '../helpers/shared.ts';
import { extraWorks, toOpenAlexWorks } from './openalex-convert.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-resume-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const files = (store: string) => Object.fromEntries(readdirSync(store).sort().map((f) => [f, readFileSync(join(store, f))]));

/** OpenAlex works of a synthetic corpus in four partition files, with works the defaults leave out. */
async function input(): Promise<string> {
  const syn = join(dir, 'syn');
  await synthesize({ ...SYNTH_DEFAULTS, articles: 1500, seed: 5, shardSize: 1500, threads: 1 }, syn);
  const recs = readdirSync(syn).filter((f) => f.endsWith('.gz')).flatMap((f) => gunzipSync(readFileSync(join(syn, f))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)));
  const works = [...toOpenAlexWorks(recs), ...extraWorks(20)].map((w) => JSON.stringify(w));
  const root = join(dir, 'works');
  for (let k = 0; k < 4; k++) {
    mkdirSync(join(root, `updated_date=2024-0${k + 1}-01`), { recursive: true });
    writeFileSync(join(root, `updated_date=2024-0${k + 1}-01`, 'part_000.gz'), gzipSync(works.filter((_, i) => i % 4 === k).join('\n') + '\n'));
  }
  return root;
}

test('stopped after each checkpoint, resumed: the same bytes; the checkpoint names what was done', async () => {
  const works = await input();
  const opts = { input: works, prefilter: PAPER_PREFILTER, sortRunBytes: 256 << 10 };
  const checkpoints: string[] = [];
  await buildCorpusStore({ ...opts, out: join(dir, 'ref'), onCheckpoint: (p, u) => checkpoints.push(`${p}:${u}`) });
  assert.deepEqual(checkpoints, ['read:1', 'read:2', 'read:3', 'read:4', 'merged:4', 'joined:4', 'graph:4']);
  const want = files(join(dir, 'ref'));
  for (let stop = 0; stop < checkpoints.length; stop++) {
    const out = join(dir, `s${stop}`);
    let seen = 0;
    await assert.rejects(buildCorpusStore({ ...opts, out, onCheckpoint: () => {
      if (seen++ === stop) throw new Error('stopped here');
    } }), /stopped here/);
    assert.ok(existsSync(`${out}.tmp-build/checkpoint.json`), 'the work so far is kept');
    const resumed: string[] = [];
    await buildCorpusStore({ ...opts, out, onCheckpoint: (p, u) => resumed.push(`${p}:${u}`) });
    assert.deepEqual(resumed, checkpoints.slice(stop + 1), `after ${checkpoints[stop]}: only the remaining steps`);
    assert.deepEqual(files(out), want, `stopped after ${checkpoints[stop]}`);
    assert.ok(!existsSync(`${out}.tmp-build`));
  }
  // A changed input file is not resumed over: the build starts again.
  let seen = 0;
  await assert.rejects(buildCorpusStore({ ...opts, out: join(dir, 'changed'), onCheckpoint: () => {
    if (seen++ === 1) throw new Error('stopped here');
  } }), /stopped here/);
  const first = join(works, 'updated_date=2024-01-01', 'part_000.gz');
  utimesSync(first, new Date(), new Date(Date.now() + 5000));
  const again: string[] = [];
  const said: string[] = [];
  await buildCorpusStore({ ...opts, out: join(dir, 'changed'), log: (l) => said.push(l), onCheckpoint: (p, u) => again.push(`${p}:${u}`) });
  assert.deepEqual(again, checkpoints, 'every step again');
  assert.equal(said.filter((l) => /resum/.test(l)).join(' | '), `not resuming the build in ${join(dir, 'changed')}.tmp-build: it was for other options or input files (or an older citebench); starting afresh`);
  // The same options with their keys in another order are the same build (a canonical key): resumed.
  const reordered = Object.fromEntries(Object.entries(PAPER_PREFILTER).reverse()) as typeof PAPER_PREFILTER;
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(PAPER_PREFILTER));
  seen = 0;
  await assert.rejects(buildCorpusStore({ ...opts, out: join(dir, 'reordered'), onCheckpoint: () => {
    if (seen++ === 0) throw new Error('stopped here');
  } }), /stopped here/);
  const rest: string[] = [];
  const told: string[] = [];
  await buildCorpusStore({ ...opts, prefilter: reordered, out: join(dir, 'reordered'), log: (l) => told.push(l), onCheckpoint: (p, u) => rest.push(`${p}:${u}`) });
  assert.deepEqual(rest, checkpoints.slice(1), 'resumed after the first input file');
  assert.match(told[0], /^resuming the build in /);
  const got = files(join(dir, 'reordered'));
  assert.deepEqual(Object.keys(got), Object.keys(want));
  assert.deepEqual(Object.keys(got).filter((f) => !got[f].equals(want[f])), [], 'files that differ (meta.json records the prefilter in one key order)');
});

test('killed (SIGKILL) by whatever it was doing, twice: the same command resumes it to the same bytes', async () => {
  const works = join(dir, 'works');
  if (!existsSync(works)) await input();
  await buildCorpusStore({ input: works, out: join(dir, 'cli-ref'), prefilter: PAPER_PREFILTER });
  const out = join(dir, 'cli');
  const ck = join(`${out}.tmp-build`, 'checkpoint.json');
  const phase = () => {
    try {
      const c = JSON.parse(readFileSync(ck, 'utf8'));
      return `${c.phase}:${c.unitsDone}`;
    } catch {
      return '';
    }
  };
  const run = (killWhen?: (p: string) => boolean) =>
    new Promise<{ code: number | null; signal: string | null; at: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli.ts'), 'corpus', 'build', '--input', works, '--out', out], { cwd: REPO, stdio: 'ignore' });
      let at = '';
      const poll = killWhen && setInterval(() => {
        const p = phase();
        if (killWhen(p)) {
          at = p;
          child.kill('SIGKILL');
        }
      }, 5);
      child.on('exit', (code, signal) => {
        if (poll) clearInterval(poll);
        resolve({ code, signal, at });
      });
    });
  const first = await run((p) => p.startsWith('read:') && p !== 'read:0');
  const second = await run((p) => /^(merged|joined)/.test(p));
  const last = await run();
  assert.equal(last.code, 0);
  assert.ok(first.signal === 'SIGKILL' || second.signal === 'SIGKILL', `killed at ${first.at || '—'} and ${second.at || '—'}`);
  assert.deepEqual(files(out), files(join(dir, 'cli-ref')));
});
