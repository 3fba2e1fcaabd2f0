import { parse } from '../args.ts';
import { writeReport } from '../../report/write-report.ts';
import { CitebenchError } from '../../util/errors.ts';
import { TRIALS } from '../../eval/significance.ts';

export const usage = `usage: citebench report RESULTS_DIR --out DIR [--no-pdf] [--store DIR] [--no-latex-paper-values] [--figure-width IN]

The shareable report of a results folder of \`citebench run\`: DIR/index.html (self-contained: inline CSS and
SVG charts, nothing fetched), DIR/report.pdf (A4, by the system's headless Chromium) and drill-down pages
DIR/drill/<field>/<model>.html. Tables 1–8 in the paper's layout with the paper's values beside ours, mean ± sd
over pool repeats, the paired significance against BM25 that \`citebench run\` stored in results.json (t-test and
randomization test, Holm; the report computes none of its own); charts of metric vs
pool size, a field heat map, MDCR candidate types and the BM25 tuning grid. A notes.md in the results folder is
included. Synthetic-corpus and random-weight results carry a banner.

For a paper: DIR/tables/ holds every table as LaTeX (booktabs; caption, label, best bold, ± sd, one superscript
letter per significance baseline) and tables.tex, a document that inputs them all (pdflatex); DIR/figures/ holds
every chart as NAME.svg and NAME.pdf (vector, fonts embedded) with its caption in NAME.txt and NAME.tex (a
figure float of the PDF, its caption escaped for LaTeX). Each figure is laid out for its width and print-checked
(no type under 6 pt, no labels touching, every pool size labelled); a problem is logged.

options:
  --out DIR      output folder (e.g. reports/NAME)
  --no-pdf       write no PDF: the HTML, the LaTeX tables and SVG figures only (no Chromium needed)
  --no-latex-paper-values
                 leave the paper's own tables out of DIR/tables/ (by default they follow ours there, each a
                 table of its own, as the report shows them; our tables never hold a paper value).
                 --latex-paper-values says the default explicitly
  --figure-width IN
                 printed width of the figures in inches (default 3.3: one column; 7 for a full page width)
  --store DIR    corpus store for titles and years in the drill-down (default: RESULTS_DIR/../store if it
                 holds the results' corpus)
  --trials N     refused: the significance marks are the tests \`citebench run\` stored in results.json
                 (10,000 trials, the config's seed); the report runs none of its own`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { out: { type: 'string' }, 'no-pdf': { type: 'boolean' }, store: { type: 'string' }, trials: { type: 'string' }, 'latex-paper-values': { type: 'boolean' }, 'no-latex-paper-values': { type: 'boolean' }, 'figure-width': { type: 'string' } }, usage);
  if (positionals.length !== 1) throw new CitebenchError(`give one results folder\n\n${usage}`);
  if (!values.out) throw new CitebenchError(`--out DIR is required\n\n${usage}`);
  if (values.trials !== undefined) throw new CitebenchError(`--trials: the report draws the marks citebench run stored in results.json (${TRIALS} trials, the config\'s seed); it tests nothing itself`);
  if (values['latex-paper-values'] && values['no-latex-paper-values']) throw new CitebenchError('--latex-paper-values and --no-latex-paper-values exclude each other');
  const width = values['figure-width'] === undefined ? undefined : Number(values['figure-width']);
  if (width !== undefined && !(width >= 1 && width <= 20)) throw new CitebenchError(`--figure-width ${values['figure-width']}: give the printed width in inches, 1 to 20 (e.g. 3.3 for a column, 7 for a page)`);
  const o = await writeReport(positionals[0], {
    out: values.out, pdf: !values['no-pdf'], store: values.store, latexPaperValues: !values['no-latex-paper-values'], figureWidth: width, log: (l) => console.error(l),
  });
  console.log(o.html);
  if (o.pdf) console.log(o.pdf);
  return 0;
}
