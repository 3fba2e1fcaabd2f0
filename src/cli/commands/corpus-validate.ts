import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parse, required } from '../args.ts';
import { validateCorpus } from '../../corpus/store-build.ts';
import { inputFormat, openAlexOptions } from './corpus-build.ts';

export const usage = `usage: citebench corpus validate --input PATH [--strict] [--allow-truncated] [--json] [--scratch DIR]
                                [--format F] [--fields concepts|topics] [--concept-threshold X] [--types T,T,…]
                                [--keep-paratext] [--keep-retracted]

Check a corpus — S2ORC metadata shards, a folder of the Semantic Scholar bulk datasets (papers/, abstracts/,
citations/) or OpenAlex works — without building anything: every record is read and sorted by id on disk in
--scratch (default the system's temporary folder), every problem is counted by kind, with the first examples
located by file, line and field, then every citation id is resolved (ids outside the input are counted;
--strict makes them errors, as it does every other problem). Exit status 1 when problems were found
(informational counts such as citations to ids outside the corpus do not count), 2 with --strict at the first
problem. A truncated or corrupt .gz file stops the check with an error naming the file and offset;
--allow-truncated counts it as a problem and goes on with the next file. --fields, --concept-threshold, --types,
--keep-paratext and --keep-retracted are the OpenAlex options of \`citebench corpus build\` (see its --help):
the check counts what a build with them would leave out.`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    input: { type: 'string' }, strict: { type: 'boolean' }, 'allow-truncated': { type: 'boolean' }, json: { type: 'boolean' }, scratch: { type: 'string' },
    format: { type: 'string' }, fields: { type: 'string' }, 'concept-threshold': { type: 'string' }, types: { type: 'string' },
    'keep-paratext': { type: 'boolean' }, 'keep-retracted': { type: 'boolean' },
  }, usage);
  const scratch = mkdtempSync(join(values.scratch ?? tmpdir(), 'citebench-validate-'));
  let report;
  try {
    report = await validateCorpus(required('input', values.input), {
      scratch, strict: values.strict, allowTruncated: values['allow-truncated'], format: inputFormat(values.format), openalex: openAlexOptions(values),
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(values.json ? JSON.stringify(report.toJSON(), null, 1) : report.format());
  return report.problemCount > 0 ? 1 : 0;
}
