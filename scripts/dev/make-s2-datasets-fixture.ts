/**
 * test/corpus/fixtures/s2-datasets/: real S2ORC records (the shared S2ORC sample, ODC-BY 1.0) in the Semantic
 * Scholar Datasets API's bulk form, two gzip'd shards per dataset, papers in a shuffled order (the reader must sort).
 *
 *   node --import tsx scripts/dev/make-s2-datasets-fixture.ts [N=400]
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { toS2Datasets } from '../../test/corpus/s2-datasets-convert.ts';
import { rngFor } from '../../src/util/rng.ts';

const n = Number(process.argv[2] ?? 400);
const repo = join(import.meta.dirname, '../..');
const sample = join(repo, '../shared/data/s2orc-sample/metadata.jsonl');
const records = readFileSync(sample, 'utf8').trim().split('\n').slice(0, n).map((l) => JSON.parse(l));
const bulk = toS2Datasets(records);
const order = Uint32Array.from(bulk.papers.keys());
rngFor(1, 'fixture-order').shuffle(order);
const out = join(repo, 'test/corpus/fixtures/s2-datasets');
rmSync(out, { recursive: true, force: true });
for (const [name, lines] of [['papers', Array.from(order, (i) => bulk.papers[i])], ['abstracts', bulk.abstracts], ['citations', bulk.citations]] as const) {
  mkdirSync(join(out, name), { recursive: true });
  const half = Math.ceil(lines.length / 2);
  [lines.slice(0, half), lines.slice(half)].forEach((part, s) => {
    writeFileSync(join(out, name, `part-${s}.jsonl.gz`), gzipSync(part.join('\n') + '\n', { level: 9 }));
  });
}
console.log(`${n} records: ${bulk.papers.length} papers, ${bulk.abstracts.length} abstracts, ${bulk.citations.length} citation rows → ${out}`);
