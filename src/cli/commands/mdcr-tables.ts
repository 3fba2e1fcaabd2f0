import { parse, num, required } from '../args.ts';
import { evaluateMdcrByType, mdcrNegativeTypes, type MdcrBenchmark, type MdcrResult } from '../../eval/mdcr.ts';
import { readJsonFile } from '../../util/json.ts';
import { mdcrTable3, mdcrTable4 } from '../../report/mdcr-tables.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench mdcr tables --benchmark MDCR.json --scores NAME=SCORES.json ... [--digits 1]

Markdown versions of the paper's Table 3 (per-field MAP and R@5 of each model, AVG last) and Table 4 (each
model on 5 positives + one candidate type's negatives, AVG over fields) from scores files
(\`citebench mdcr score\`), evaluated with mdcr-eval's rules. --scores is repeatable, one per model.`;

export async function run(args: string[]) {
  const { values } = parse(args, { benchmark: { type: 'string' }, scores: { type: 'string', multiple: true }, digits: { type: 'string' } }, usage);
  const benchmarkPath = required('benchmark', values.benchmark);
  const specs = values.scores ?? [];
  if (specs.length === 0) throw new CitebenchError('--scores NAME=FILE is required (one per model)');
  const digits = num('digits', values.digits, 1);
  const benchmark = readJsonFile(benchmarkPath);
  // Types with candidates: an official key written empty (its model not given at build) has no Table 4 column.
  const types = mdcrNegativeTypes(benchmark as MdcrBenchmark, { nonEmpty: true });
  const t3: { model: string; result: MdcrResult }[] = [];
  const t4: { model: string; byType: Record<string, MdcrResult> }[] = [];
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CitebenchError(`--scores expects NAME=FILE, got '${spec}'`);
    const model = spec.slice(0, eq);
    const scoresPath = spec.slice(eq + 1);
    const scores = readJsonFile(scoresPath);
    const r = evaluateMdcrByType(benchmark, scores, { benchmarkPath, scoresPath, types });
    t3.push({ model, result: r.all });
    t4.push({ model, byType: r.types });
  }
  process.stdout.write(`Table 3: MDCR, per field\n\n${mdcrTable3(t3, { digits })}\nTable 4: MDCR, per candidate type (AVG over fields)\n\n${mdcrTable4(t4, { digits, types })}`);
}
