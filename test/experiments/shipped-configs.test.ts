/** Every configuration shipped in configs/ parses, and its models are the kinds its comments promise. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/experiments/config.ts';

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
