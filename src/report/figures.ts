/**
 * The report's charts as standalone figures for a paper: NAME.svg and NAME.pdf, vector only, sized to a column
 * (3.3 in by default). A figure is the same Chart the HTML report draws (charts.ts: the same spec, the same data,
 * the same renderer, chartSvg) with a print layout laid over it: no title (the paper's caption says it; the
 * caption text is written beside as NAME.txt, naming a synthetic corpus there rather than over the plot), the
 * legend below the plot, 7.5 pt type, and the plot areas scaled so the whole figure is the asked width at its
 * natural type size. Side-by-side panels wrap onto rows when a column is too narrow for them.
 *
 * The PDF is the SVG printed by the system's headless Chromium (pdf.ts): text stays text in an embedded font
 * subset, lines and areas stay paths; nothing is rasterised.
 */
import { extname } from 'node:path';
import { writeFileAtomic } from '../util/atomic.ts';
import { chartSvg, type Chart, type ChartSpec } from './charts.ts';
import { launchChromium, type Browser } from './pdf.ts';
import { CitebenchError } from '../util/errors.ts';
import { latexText } from './latex.ts';

/** A single column of a two-column paper, in inches. */
export const FIGURE_WIDTH_IN = 3.3;
/** CSS pixels per inch: the SVG's user units. */
const PX_PER_IN = 96;
/** Type of a figure, in CSS px at its printed size (10 px = 7.5 pt). */
const FONT_PX = 10;

export interface FigureOptions {
  /** Printed width in inches (default 3.3). */
  width?: number;
}

/** The print layout laid over a chart's spec: no title, small type, legend below, plot sizes × f. */
function figureSpec(spec: ChartSpec, f: number, wrap?: number): ChartSpec {
  const s = structuredClone(spec) as Record<string, any>;
  delete s.title;
  s.config = {
    ...(s.config ?? {}),
    axis: { ...(s.config?.axis ?? {}), labelFontSize: FONT_PX, titleFontSize: FONT_PX, titleFontWeight: 'normal' },
    legend: { ...(s.config?.legend ?? {}), labelFontSize: FONT_PX, titleFontSize: FONT_PX, orient: 'bottom', direction: 'horizontal', columns: 3, titleFontWeight: 'normal' },
    header: { labelFontSize: FONT_PX + 1, titleFontSize: FONT_PX + 1 },
  };
  for (const node of [s, s.spec]) {
    if (!node) continue;
    if (typeof node.width === 'number') node.width = Math.max(30, Math.round(node.width * f));
    if (typeof node.height === 'number') node.height = Math.max(50, Math.round(node.height * Math.max(f, 0.55)));
    // Category labels set level under wide bars would run into each other once the plot shrinks: slanted.
    for (const l of [node, ...(node.layer ?? [])]) {
      const x = l.encoding?.x;
      if (f < 0.8 && x?.type === 'nominal' && x.axis?.labelAngle === 0) x.axis = { ...x.axis, labelAngle: -35, labelAlign: 'right' };
    }
    // Text drawn inside the marks (heat-map values) shrinks with the cells, within legibility.
    for (const l of node.layer ?? []) if (l.mark?.type === 'text') l.mark = { ...l.mark, fontSize: Math.max(6, Math.min(l.mark.fontSize ?? FONT_PX, Math.round(FONT_PX * Math.min(1, f * 1.4)))) };
  }
  // Panels side by side (facet.column) wrap into `wrap` columns.
  if (wrap && s.facet?.column && !s.facet.row) {
    s.facet = { ...s.facet.column, header: { labelFontSize: FONT_PX + 1 } };
    s.columns = wrap;
  }
  return s;
}

const sizeOf = (svg: string) => {
  const m = /<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"/.exec(svg);
  if (!m) throw new CitebenchError('chart SVG without a size');
  return { w: Number(m[1]), h: Number(m[2]) };
};

/** How many panels a faceted-by-column chart has (its column field's distinct values), or 0. */
function panels(spec: ChartSpec): number {
  const s = spec as Record<string, any>;
  const field = s.facet?.column?.field;
  if (!field || !Array.isArray(s.data?.values)) return 0;
  return new Set(s.data.values.map((v: Record<string, unknown>) => v[field])).size;
}

/** The spec of a chart at a printed width, and its SVG (the SVG's own px size; figureSvg sets it in inches). */
export async function figureRender(chart: Chart, opts: FigureOptions = {}): Promise<{ spec: ChartSpec; svg: string; inches: number }> {
  const inches = opts.width ?? FIGURE_WIDTH_IN;
  if (!(inches > 0.5 && inches < 40)) throw new CitebenchError(`figure width ${inches} in: give a width between 0.5 and 40 inches`);
  const target = inches * PX_PER_IN;
  if (chart.layout) {
    // The chart lays itself out for the width (panels side by side or stacked, cell text where it fits); the
    // widest plot that keeps the figure within `target` is searched for (the figure's width never falls as the
    // plot grows, but stays flat while a legend below is the widest part: bisection, not a secant).
    const spec = (plot: number) => {
      const s = chart.layout!(target, FONT_PX, plot) as Record<string, unknown>;
      delete s.title;
      return s;
    };
    const widthAt = async (plot: number) => sizeOf(await chartSvg(spec(plot), chart.id)).w;
    let [lo, hi] = [10, target];
    if ((await widthAt(hi)) <= target) lo = hi;
    else for (let i = 0; i < 12 && hi - lo > 0.5; i++) {
      const mid = (lo + hi) / 2;
      if ((await widthAt(mid)) <= target) lo = mid;
      else hi = mid;
    }
    const p1 = Math.floor(lo * 2) / 2;
    const s = spec(p1);
    return { spec: s, svg: await chartSvg(s, chart.id), inches };
  }
  const render = (f: number, wrap?: number) => figureSpec(chart.spec, f, wrap);
  const solve = async (wrap?: number) => {
    const [a, b] = [sizeOf(await chartSvg(render(1, wrap), chart.id)).w, sizeOf(await chartSvg(render(0.5, wrap), chart.id)).w];
    const slope = (a - b) / 0.5;
    return slope > 0 ? (target - (a - slope)) / slope : 1;
  };
  let wrap: number | undefined;
  let f = await solve();
  // Panels narrower than half their drawn width: fewer per row, as many rows as it takes.
  const n = panels(chart.spec);
  for (let cols = n - 1; f < 0.5 && cols >= 1; cols--) {
    wrap = cols;
    f = await solve(wrap);
  }
  f = Math.min(3, Math.max(0.15, f));
  const spec = render(f, wrap);
  return { spec, svg: await chartSvg(spec, chart.id), inches };
}

/**
 * A chart as a standalone SVG file of the asked printed width: width/height in inches, the drawing in its
 * viewBox. Plot sizes are solved for, so type keeps its size (7.5 pt; nothing under 6 pt).
 */
export async function figureSvg(chart: Chart, opts: FigureOptions = {}): Promise<string> {
  return figureFile(await figureRender(chart, opts));
}

/** The file of a rendered figure: its SVG with the printed width and height in inches. */
export function figureFile(f: { svg: string; inches: number }): string {
  const { w, h } = sizeOf(f.svg);
  const height = (f.inches * h) / w;
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + f.svg.replace(/(<svg[^>]*?)\swidth="[\d.]+"(\s[^>]*?)?\sheight="[\d.]+"/, `$1 width="${f.inches}in"$2 height="${+height.toFixed(4)}in"`) + '\n';
}

/** A figure's printed size from its SVG (inches). */
function inchesOf(svg: string): { w: number; h: number } {
  const m = /<svg[^>]*\swidth="([\d.]+)in"[^>]*\sheight="([\d.]+)in"/.exec(svg);
  if (!m) throw new CitebenchError('figure SVG without a size in inches');
  return { w: Number(m[1]), h: Number(m[2]) };
}

/** A figure's SVG as a one-page PDF of exactly its size (vector: Chromium prints SVG as paths and text). */
export async function figurePdf(svg: string, browser?: Browser): Promise<Buffer> {
  const { w, h } = inchesOf(svg);
  const own = !browser;
  const b = browser ?? (await launchChromium());
  try {
    const page = await b.newPage();
    // Nothing is fetched: the page is the SVG alone.
    await page.route('**/*', (route) => route.abort());
    const body = svg.replace(/^<\?xml[^>]*>\s*/, '');
    await page.setContent(`<!doctype html><html><head><style>@page{size:${w}in ${h}in;margin:0}html,body{margin:0;padding:0}svg{display:block}</style></head><body>${body}</body></html>`);
    const pdf = await page.pdf({ width: `${w}in`, height: `${h}in`, printBackground: true, pageRanges: '1', preferCSSPageSize: true });
    await page.close();
    return pdf;
  } finally {
    if (own) await b.close();
  }
}

/**
 * What NAME.txt holds: the chart's caption, the full names of the abbreviated ones (charts.ts's shortNames rule),
 * and where its numbers come from when that is not literature.
 */
export function figureCaption(chart: Chart, provenance?: string): string {
  const abbr = Object.entries(chart.abbreviations ?? {});
  const names = abbr.length ? ` Abbreviated: ${abbr.map(([short, full]) => `${short} = ${full}`).join('; ')}.` : '';
  return `${chart.title}. ${chart.caption}${names}${provenance ? ` ${provenance}` : ''}\n`;
}

/**
 * NAME.tex: the figure as a LaTeX float — the PDF (figures/NAME.pdf, the report folder's layout: a paper beside
 * that folder \inputs it as it is) and the caption of NAME.txt escaped for LaTeX (latex.ts's latexText: any name compiles).
 */
export function figureLatex(chart: Chart, provenance?: string): string {
  return [
    `% citebench ${chart.id}: needs \\usepackage{graphicx}; the figure is figures/${chart.id}.pdf (already its printed width)`,
    '\\begin{figure}[tbp]', '\\centering', `\\includegraphics{figures/${chart.id}.pdf}`,
    `\\caption{${latexText(figureCaption(chart, provenance).trim())}}`, `\\label{fig:citebench-${chart.id.replace(/[^A-Za-z0-9-]/g, '-')}}`, '\\end{figure}', '',
  ].join('\n');
}

/**
 * A chart (a report chart from `res.chart(name)`, or a corpus chart) as a figure file: SVG or PDF by the path's
 * extension, `width` inches wide (default 3.3). The same renderer as `citebench report`'s figures/.
 */
export async function saveFigure(chart: Chart, path: string, opts: FigureOptions = {}): Promise<string> {
  const ext = extname(path).toLowerCase();
  if (ext !== '.svg' && ext !== '.pdf') throw new CitebenchError(`${path}: a figure is written as .svg or .pdf (by the file's extension)`);
  const svg = await figureSvg(chart, opts);
  writeFileAtomic(path, ext === '.svg' ? svg : await figurePdf(svg));
  return path;
}
