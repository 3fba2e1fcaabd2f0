import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parse, required } from '../args.ts';
import { readCorpusInput } from '../../corpus/s2-datasets.ts';
import { ValidationReport } from '../../corpus/validation.ts';
import { IdIndex } from '../../corpus/id-index.ts';
import { CitationSpool, resolveCitations } from '../../corpus/citations.ts';

export const usage = `usage: citebench corpus validate --input SHARDS [--strict] [--allow-truncated] [--json] [--scratch DIR]

Check S2ORC metadata shards, or a folder of the Semantic Scholar bulk datasets (papers/, abstracts/,
citations/; joined by corpusid through sorts on disk in --scratch, default the system's temporary folder),
without building anything: every problem is counted by kind, with the first
examples located by file, line and field, then every citation id is resolved (ids outside the shards are
counted; --strict makes them errors, as it does every other problem). Exit status 1 when problems were found
(informational counts such as citations to ids outside the corpus do not count), 2 with --strict at the first
problem. A truncated or corrupt .jsonl.gz shard stops the check with an error naming the file and offset;
--allow-truncated counts it as a problem and goes on with the next file.`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    input: { type: 'string' }, strict: { type: 'boolean' }, 'allow-truncated': { type: 'boolean' }, json: { type: 'boolean' }, scratch: { type: 'string' },
  }, usage);
  const report = new ValidationReport(values.strict);
  const ids = new IdIndex();
  const spoolDir = mkdtempSync(join(values.scratch ?? tmpdir(), 'citebench-validate-'));
  try {
    const spool = new CitationSpool(join(spoolDir, 'citations.spool'));
    let n = 0;
    const input = required('input', values.input);
    for await (const a of readCorpusInput(input, { report, allowTruncated: values['allow-truncated'], scratch: join(spoolDir, 'sort') })) {
      if (ids.add(a.id, n) !== n) {
        report.add('duplicate-id', a.file, a.line, 'paper_id', `duplicate paper_id ${a.id}`);
        continue;
      }
      spool.add(a.file, a.line, a.outbound, a.inbound);
      n++;
    }
    spool.close();
    report.recordsAccepted = n;
    resolveCitations(spool, ids, report, () => {});
  } finally {
    rmSync(spoolDir, { recursive: true, force: true });
  }
  console.log(values.json ? JSON.stringify(report.toJSON(), null, 1) : report.format());
  return report.problemCount > 0 ? 1 : 0;
}
