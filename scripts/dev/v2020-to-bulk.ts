/**
 * Rewrites v2020 metadata shards (e.g. `citebench synth` output) in the Semantic Scholar bulk form, one
 * papers/abstracts/citations shard per input shard, streaming shard by shard: for measuring the bulk join
 * (`corpus build --input OUT`) against the v2020 build of the same records.
 *
 *   node --import tsx scripts/dev/v2020-to-bulk.ts SHARDS_DIR OUT_DIR
 *
 * Citation rows come from the outbound lists only: exact for synthetic shards, whose inbound lists mirror the
 * outbound ones; real v2020 records also list citers from outside the input, which this leaves out.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { listShards } from '../../src/corpus/s2orc-reader.ts';
import { toS2Datasets } from '../../test/corpus/s2-datasets-convert.ts';

const [input, out] = process.argv.slice(2);
if (!input || !out) throw new Error('usage: v2020-to-bulk.ts SHARDS_DIR OUT_DIR');
for (const d of ['papers', 'abstracts', 'citations']) mkdirSync(join(out, d), { recursive: true });
for (const file of listShards(input)) {
  const raw = readFileSync(file);
  const text = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
  const records = text.trim().split('\n').map((l) => ({ ...JSON.parse(l), inbound_citations: [] }));
  const bulk = toS2Datasets(records);
  const name = basename(file).replace(/\.jsonl(\.gz)?$/, '.jsonl.gz');
  for (const [d, lines] of [['papers', bulk.papers], ['abstracts', bulk.abstracts], ['citations', bulk.citations]] as const) {
    writeFileSync(join(out, d, name), gzipSync(lines.join('\n') + '\n', { level: 1 }));
  }
  console.log(`${file}: ${bulk.papers.length} papers, ${bulk.abstracts.length} abstracts, ${bulk.citations.length} citation rows`);
}
