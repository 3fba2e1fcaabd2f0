/**
 * Writes test/corpus/fixtures/openalex/: the first 400 real S2ORC records of the shared sample (allenai/s2orc
 * `data/metadata/sample.jsonl`, ODC-BY 1.0) as OpenAlex works, laid out as a snapshot's works folder —
 *   works/manifest                              Redshift manifest: each file's url and record_count
 *   works/updated_date=2020-07-05/part_000.gz   the converted records, shuffled (seed 35) and split in two files
 *   works/updated_date=2020-07-05/part_001.gz
 *   works/updated_date=2020-07-06/part_000.gz   10 works the default options leave out (other types, paratext,
 *                                               retracted), citing and cited by nothing
 * The mapping from the v2020 schema to the work object is written out in test/corpus/openalex-convert.ts (the
 * tests' converter, which the reader shares no code with). gzip level 9, no timestamps: the bytes depend only on
 * the records.
 *
 *   node --import tsx scripts/dev/make-openalex-fixture.ts [SAMPLE.jsonl]   (default ../shared/data/s2orc-sample/metadata.jsonl)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { extraWorks, toOpenAlexWorks } from '../../test/corpus/openalex-convert.ts';
import { Rng } from '../../src/util/rng.ts';

const root = new URL('../..', import.meta.url).pathname;
const sample = process.argv[2] ?? join(root, '../shared/data/s2orc-sample/metadata.jsonl');
const out = join(root, 'test/corpus/fixtures/openalex');

/** The fixture's works files (relative to works/) and their lines. */
export function fixtureFiles(records: any[]): Record<string, string[]> {
  const works = toOpenAlexWorks(records).map((w) => JSON.stringify(w));
  const r = new Rng(35);
  for (let i = works.length - 1; i > 0; i--) {
    const j = r.nextInt(i + 1);
    [works[i], works[j]] = [works[j], works[i]];
  }
  const half = Math.ceil(works.length / 2);
  return {
    'updated_date=2020-07-05/part_000.gz': works.slice(0, half),
    'updated_date=2020-07-05/part_001.gz': works.slice(half),
    'updated_date=2020-07-06/part_000.gz': extraWorks(10).map((w) => JSON.stringify(w)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const records = readFileSync(sample, 'utf8').trim().split('\n').slice(0, 400).map((l) => JSON.parse(l));
  rmSync(out, { recursive: true, force: true });
  const files = fixtureFiles(records);
  const entries = [];
  for (const [rel, lines] of Object.entries(files)) {
    mkdirSync(join(out, 'works', rel, '..'), { recursive: true });
    const bytes = gzipSync(lines.join('\n') + '\n', { level: 9 });
    writeFileSync(join(out, 'works', rel), bytes);
    entries.push({ url: `s3://openalex/data/works/${rel}`, meta: { content_length: bytes.length, record_count: lines.length } });
  }
  const total = entries.reduce((t, e) => t + e.meta.record_count, 0);
  writeFileSync(join(out, 'works', 'manifest'), JSON.stringify({ entries, meta: { content_length: entries.reduce((t, e) => t + e.meta.content_length, 0), record_count: total } }, null, 1) + '\n');
  writeFileSync(join(out, 'README.md'), `# OpenAlex works fixture

The first 400 records of the S2ORC v2020-07-05 metadata sample (allenai/s2orc \`data/metadata/sample.jsonl\`,
licence ODC-BY 1.0), converted to OpenAlex's work schema and laid out as a snapshot's works folder, with 10
works of types the default options leave out. Made by \`scripts/dev/make-openalex-fixture.ts\`; the mapping is in
\`test/corpus/openalex-convert.ts\`. Test data only: the concept scores, types and topics are the converter's.
`);
  console.log(`wrote ${out}: ${total} works in ${entries.length} files`);
}
