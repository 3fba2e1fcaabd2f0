/**
 * The print check of a figure (figures.ts): its text drawn at the printed width is at least 6 pt, no two texts
 * overlap or touch (0.5 pt apart at least), and every plot area holds marks. Read from vega's scenegraph (each
 * text item's bounds, the groups' offsets), not from the SVG: the same layout the SVG is written from.
 */
import { vegaModules, type ChartSpec } from './charts.ts';

export interface PrintText {
  text: string;
  /** Size at print, in points. */
  pt: number;
  /** Bounds at print, in points from the figure's top left. */
  x1: number; y1: number; x2: number; y2: number;
}

export interface PrintCheck {
  texts: PrintText[];
  /** What a reader would stumble on; empty when the figure passes. */
  problems: string[];
  /** Plot areas (groups with axes) and how many of them draw nothing. */
  plots: number;
  emptyPlots: number;
}

/** Smallest type at print (pt) and the least gap between two texts (pt). */
export const MIN_PT = 6;
export const MIN_GAP_PT = 0.5;

type Item = { text?: string | string[]; fontSize?: number; opacity?: number; fillOpacity?: number; x?: number; y?: number; bounds: { x1: number; y1: number; x2: number; y2: number }; items?: Mark[] };
type Mark = { marktype: string; role?: string; items?: Item[] };

/** Checks a vega-lite spec drawn `inches` wide (its own width in px scaled to that). */
export async function printCheck(spec: ChartSpec, inches: number): Promise<PrintCheck> {
  const [vega, vl] = await vegaModules();
  const compiled = vl.compile(spec as unknown as Parameters<typeof vl.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    await view.runAsync();
    // Points per px: the figure's SVG is its px width set to `inches`.
    const scale = (inches * 72) / Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(await view.toSVG())![1]);
    const texts: PrintText[] = [];
    // Plot areas: groups that hold data marks beside their axes. A facet's axes may stand apart from its panels
    // (a footer under a column): such an axis with no panel just above it is the empty panel a wrapped facet
    // draws when its last row is short.
    const areas: { x1: number; x2: number; y1: number; y2: number; drawn: number }[] = [];
    const footers: { x1: number; x2: number; y: number }[] = [];
    const walk = (mark: Mark, ox: number, oy: number) => {
      for (const item of mark.items ?? []) {
        if (mark.marktype === 'text') {
          const t = Array.isArray(item.text) ? item.text.join(' ') : item.text;
          if (t === undefined || String(t).trim() === '' || item.opacity === 0 || item.fillOpacity === 0) continue;
          const b = item.bounds;
          texts.push({ text: String(t), pt: (item.fontSize ?? 11) * scale, x1: (ox + b.x1) * scale, y1: (oy + b.y1) * scale, x2: (ox + b.x2) * scale, y2: (oy + b.y2) * scale });
        }
        if (mark.marktype === 'group') {
          const children = item.items ?? [];
          const [gx, gy] = [ox + (item.x ?? 0), oy + (item.y ?? 0)];
          const w = (item as { width?: number }).width ?? 0;
          const h = (item as { height?: number }).height ?? 0;
          const data = children.filter((c) => c.role === 'mark');
          if (mark.role === 'column-footer') footers.push({ x1: gx, x2: gx + w, y: gy });
          else if (children.some((c) => c.role === 'axis') && (data.length || mark.role === 'scope' || mark.role === 'cell')) {
            areas.push({ x1: gx, x2: gx + w, y1: gy, y2: gy + h, drawn: data.reduce((n, c) => n + (c.items?.length ?? 0), 0) });
          }
          for (const c of children) walk(c, gx, gy);
        }
      }
    };
    // The scene is drawn translated by the view's origin (the room its axes and legends take left and above).
    const [ox, oy] = view.origin();
    walk((view.scenegraph() as unknown as { root: Mark }).root, ox, oy);
    const plots = areas.length;
    const orphanAxes = footers.filter((f) => !areas.some((a) => a.x1 < f.x2 && f.x1 < a.x2 && f.y - a.y2 >= -1 && f.y - a.y2 <= 40)).length;
    const emptyPlots = areas.filter((a) => a.drawn === 0).length + orphanAxes;
    const problems: string[] = [];
    for (const t of texts) if (t.pt < MIN_PT - 1e-6) problems.push(`"${t.text}" at ${t.pt.toFixed(2)} pt (under ${MIN_PT} pt)`);
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const [a, b] = [texts[i], texts[j]];
        const g = MIN_GAP_PT;
        if (a.x1 < b.x2 + g && b.x1 < a.x2 + g && a.y1 < b.y2 + g && b.y1 < a.y2 + g) problems.push(`"${a.text}" and "${b.text}" overlap or touch`);
      }
    }
    if (emptyPlots) problems.push(`${emptyPlots} empty panel(s): a plot area that draws nothing, or an axis under no panel`);
    return { texts, problems, plots, emptyPlots };
  } finally {
    view.finalize();
  }
}
