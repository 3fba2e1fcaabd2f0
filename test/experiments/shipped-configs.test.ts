/** Every configuration shipped in configs/ parses, and its models are the kinds its comments promise. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/experiments/config.ts';
import { dryRun } from '../../src/experiments/run.ts';

const DIR = new URL('../../configs/', import.meta.url).pathname;

test('configs/*.yaml parse; modern.yaml has SPECTER2 with its adapter and three sentence-transformers models by hub id', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();
  assert.ok(files.includes('default.yaml') && files.includes('modern.yaml'), files.join(' '));
  for (const f of files) parseConfig(readFileSync(join(DIR, f), 'utf8'), join(DIR, f));
  const modern = parseConfig(readFileSync(join(DIR, 'modern.yaml'), 'utf8'), join(DIR, 'modern.yaml'));
  const byName = Object.fromEntries(modern.models.map((m) => [m.name, m as { kind: string; model?: string }]));
  assert.equal(byName.specter2.kind, 'dense');
  assert.equal(byName['specter2-base'].kind, 'dense');
  assert.deepEqual(['e5-base', 'multilingual-e5', 'modernbert-embed'].map((n) => byName[n].model), ['intfloat/e5-base-v2', 'intfloat/multilingual-e5-base', 'nomic-ai/modernbert-embed-base']);
  assert.ok(modern.protocols.mdcr, 'MDCR: the SPECTER2 card\'s reference block goes beside its Table 3');
});

test('llm.yaml: BM25, SciNCL, SPECTER2, Qwen3-Embedding-0.6B and EmbeddingGemma under the paper\'s protocols; the dry run prices each encoder by its size, in CPU days at full scale', () => {
  const file = join(DIR, 'llm.yaml');
  const cfg = parseConfig(readFileSync(file, 'utf8'), file);
  assert.deepEqual(cfg.models.map((m) => m.name), ['bm25', 'scincl', 'specter2', 'qwen3-embedding-0.6b', 'embeddinggemma-300m']);
  assert.ok(cfg.protocols.dataset && cfg.protocols.field && cfg.protocols.mdcr);
  const text = dryRun(cfg, { memoryBytes: 24 * 2 ** 30 });
  const days = (name: string) => Number(new RegExp(`encode ${name}: \\d+ articles, [^\\n]* ([\\d.]+) days`).exec(text)?.[1]);
  assert.match(text, /encode qwen3-embedding-0\.6b: \d+ articles, qwen3-embedding-0\.6b \(596 M parameters, float32, 107 tokens\/s\) on CPU/);
  assert.match(text, /encode embeddinggemma-300m: \d+ articles, embeddinggemma-300m \(303 M parameters, float32, 396 tokens\/s\) on CPU/);
  // The measured rates: BERT-base 8.25 articles/s (int8), Qwen3-0.6B 107 tokens/s (float32) over 239-token articles.
  assert.ok(Math.abs(days('qwen3-embedding-0.6b') / days('scincl') - (239 / 107) * 8.25) < 0.05, text);
  assert.ok(days('qwen3-embedding-0.6b') > 30, 'CPU days at the full scale');
});
