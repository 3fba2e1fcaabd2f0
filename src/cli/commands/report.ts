import { parse } from '../args.ts';
import { writeReport } from '../../report/write-report.ts';
import { CitebenchError } from '../../util/errors.ts';
import { TRIALS } from '../../eval/significance.ts';

export const usage = `usage: citebench report RESULTS_DIR --out DIR [--no-pdf] [--store DIR]

The shareable report of a results folder of \`citebench run\`: DIR/index.html (self-contained: inline CSS and
SVG charts, nothing fetched), DIR/report.pdf (A4, by the system's headless Chromium) and drill-down pages
DIR/drill/<field>/<model>.html. Tables 1–8 in the paper's layout with the paper's values beside ours, mean ± sd
over pool repeats, the paired significance against BM25 that \`citebench run\` stored in results.json (t-test and
randomization test, Holm; the report computes none of its own); charts of metric vs
pool size, a field heat map, MDCR candidate types and the BM25 tuning grid. A notes.md in the results folder is
included. Synthetic-corpus and random-weight results carry a banner.

options:
  --out DIR      output folder (e.g. reports/NAME)
  --no-pdf       write the HTML only (no Chromium needed)
  --store DIR    corpus store for titles and years in the drill-down (default: RESULTS_DIR/../store if it
                 holds the results' corpus)
  --trials N     refused: the significance marks are the tests \`citebench run\` stored in results.json
                 (10,000 trials, the config's seed); the report runs none of its own`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { out: { type: 'string' }, 'no-pdf': { type: 'boolean' }, store: { type: 'string' }, trials: { type: 'string' } }, usage);
  if (positionals.length !== 1) throw new CitebenchError(`give one results folder\n\n${usage}`);
  if (!values.out) throw new CitebenchError(`--out DIR is required\n\n${usage}`);
  if (values.trials !== undefined) throw new CitebenchError(`--trials: the report draws the marks citebench run stored in results.json (${TRIALS} trials, the config\'s seed); it tests nothing itself`);
  const o = await writeReport(positionals[0], { out: values.out, pdf: !values['no-pdf'], store: values.store, log: (l) => console.error(l) });
  console.log(o.html);
  if (o.pdf) console.log(o.pdf);
  return 0;
}
