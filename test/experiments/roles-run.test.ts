/**
 * Query and document roles through the one path: a sentence-transformers folder whose query prompt differs from
 * its document prompt (test/dense/fixtures/st, saved by sentence-transformers itself; random weights, so nothing
 * here is a finding) runs through a config's field level and MDCR. Every score the run writes — a field-level run
 * file and the MDCR scores file — is the similarity of the query's query-role vector and the candidate's
 * document-role vector, recomputed here with the encoder; the query vector is never the document one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel } from '../../src/retrieval/dense/models.ts';

const ST = new URL('../dense/fixtures/st/mean-normalize-prompts', import.meta.url).pathname;

const cosine = (a: Float32Array, b: Float32Array) => {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (d += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return d / Math.sqrt(na * nb);
};

test('a model with query and document prompts: run files and MDCR scores are query-role vectors against document-role ones', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-roles-'));
  try {
    const model = join(tmp, 'st');
    cpSync(ST, model, { recursive: true });
    const cfg = parseConfig(
      `name: roles\nseed: 7\ncorpus: {synthetic: {articles: 3000, seed: 7}}\nk: 50\nmeasures: [MAP]\nvalidation: {queries: 4}\n` +
        `models:\n  bm25: {}\n  st: {model: ${JSON.stringify(model)}}\n` +
        `protocols:\n  field: {queries: 3, pool: 400, repeats: 1, fields: [Medicine, Biology]}\n  mdcr: {}\n`,
      'roles.yaml', { work: join(tmp, 'work'), results: join(tmp, 'res') },
    );
    const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
    try {
      const st = out.results.models.find((m) => m.name === 'st')!;
      assert.deepEqual(st.settings.prompts, { query: 'query: ', document: 'passage: ' });
      const emb = readdirSync(join(tmp, 'work', 'embeddings')).find((d) => d.startsWith('st-'))!;
      assert.ok(existsSync(join(tmp, 'work', 'embeddings', emb, 'query')) && existsSync(join(tmp, 'work', 'embeddings', emb, 'document')), 'a store per role');

      const enc = await Encoder.load(resolveModel(model), { threads: 1 });
      try {
        const vec = async (i: number, role: 'query' | 'document') => (await enc.encode([out.store.text(i)], undefined, role)).vectors;
        const check = async (qid: string, did: string, score: number, what: string) => {
          const q = out.store.indexOf(qid);
          const d = out.store.indexOf(did);
          const want = cosine(await vec(q, 'query'), await vec(d, 'document'));
          assert.ok(Math.abs(score - want) < 1e-4, `${what} ${qid}→${did}: ${score} vs query·document ${want}`);
          return Math.abs(score - cosine(await vec(q, 'document'), await vec(d, 'document')));
        };
        // A field-level run file: the first line of each of its first queries.
        const cell = out.results.cells.find((c) => c.model === 'st' && c.protocol === 'field')!;
        const runLines = readFileSync(join(out.resultsDir, cell.files.run), 'utf8').trim().split('\n');
        const firsts = [...new Map(runLines.map((l) => l.split(' ')).map((f) => [f[0], f] as const)).values()].slice(0, 3);
        let apart = 0;
        for (const f of firsts) apart = Math.max(apart, await check(f[0], f[2], Number(f[4]), 'run file'));
        // The MDCR scores file: a few pairs.
        const scores = JSON.parse(readFileSync(join(out.resultsDir, 'mdcr', 'scores', 'st.json'), 'utf8')) as Record<string, number>;
        const pairs = Object.entries(scores).slice(0, 5);
        assert.ok(pairs.length > 0);
        for (const [key, s] of pairs) {
          const [qid, did] = key.split('_');
          apart = Math.max(apart, await check(qid, did, s, 'MDCR'));
        }
        assert.ok(apart > 1e-3, 'the prompts change the scores: a document vector in the query\'s place would be caught');
      } finally {
        await enc.release();
      }
    } finally {
      out.store.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
