/**
 * The report's tables of the statistics beyond the marks (docs/statistics.md), read from results.json's
 * significance record (nothing here computes a test): each model's mean with its 95 % interval and its letter
 * group of the randomised Tukey HSD, a table per measure and protocol; and the per-query results sliced by query
 * attribute. Rendered like every ReportTable (Markdown, HTML, LaTeX).
 */
import type { Interval } from '../eval/statistics.ts';
import { fmtValue, poolLabel, type ReportTable, type TableCell, type TableRow } from './tables.ts';
import type { GroupRow, ResultsIndex, SliceRecordRow } from './results.ts';
import { storedSignificance } from './significance.ts';

const num = (text: string): TableCell => ({ kind: 'text', text, num: true });
/** An interval ×100 as "[lo, hi]" with one decimal; – where none. */
export const intervalText = (x: Interval | undefined) => (x ? `[${fmtValue(100 * x[0])}, ${fmtValue(100 * x[1])}]` : '–');
const signed = (v: number) => {
  const s = fmtValue(100 * v);
  return s === '0.0' ? '±0.0' : s.startsWith('-') ? s : `+${s}`;
};
const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase();
const protocolText = (p: string) => (p === 'dataset' ? 'dataset level' : 'field level');

/** Every protocol × measure of the stored letter groups: models × (setting,) pool sizes, the mean (×100) with its letters and its 95 % interval. */
export function groupTables(r: ResultsIndex): ReportTable[] {
  const s = storedSignificance(r);
  if (!s?.groups?.length) return [];
  const byTable = new Map<string, GroupRow[]>();
  for (const g of s.groups) {
    const k = `${g.protocol}|${g.measure}`;
    byTable.set(k, [...(byTable.get(k) ?? []), g]);
  }
  const settingRank = (x: string) => (x === 'transductive' ? 0 : 1);
  return [...byTable.values()].map((gs) => {
    const { protocol, measure } = gs[0];
    const pools = gs.sort((a, b) => settingRank(a.setting) - settingRank(b.setting) || a.poolSize - b.poolSize);
    const settings = new Set(pools.map((g) => g.setting)).size > 1;
    const models = [...new Set(pools.flatMap((g) => Object.keys(g.letters)))];
    const rows: TableRow[] = models.map((model) => ({
      label: model,
      cells: pools.flatMap((g): TableCell[] => g.letters[model] === undefined
        ? [{ kind: 'value' }, num('–')]
        : [{ kind: 'value', value: 100 * g.means[model], letters: g.letters[model] }, num(intervalText(g.ci95[model] ?? undefined))]),
    }));
    const queries = [...new Set(pools.map((g) => g.queries))].join('/');
    const only = pools[0].setting === 'inductive' && !settings;
    return {
      id: `groups-${protocol}-${slug(measure)}`,
      title: `${measure}: all pairs of models, ${protocolText(protocol)}${only ? ' — inductive setting' : ''}`,
      rowHead: 'model', plain: true, ...(only ? { setting: 'inductive' as const } : {}),
      intro: `Each model's mean ${measure} (×100) over the ${queries} test queries every model has` +
        (protocol === 'field' ? ' (the queries of every field together)' : '') +
        `, each query's value its mean over the pool samples, and the mean's 95 % t-interval. Superscript letters: the groups of the randomised Tukey HSD over all pairs of models ` +
        `(${s.trials} permutations of each query's values across the models, seeded; p = (permutations whose largest difference between two model means reaches the pair's + 1) / (${s.trials} + 1)) at p < ${s.alpha}: ` +
        `models sharing a letter do not differ significantly; two models without a common letter do. One family per ${settings ? 'setting and ' : ''}pool size; a = the group of the best mean.`,
      groups: pools.map((g) => ({ text: `${settings ? `${g.setting}, ` : ''}${poolLabel(g.poolSize)} pool`, span: 2, short: `${settings ? `${g.setting.slice(0, 5)}. ` : ''}${poolLabel(g.poolSize)}` })),
      columns: pools.flatMap(() => ['mean', '95% CI']),
      rows,
    } satisfies ReportTable;
  });
}

const ATTRIBUTE_TEXT: Record<string, string> = {
  field: "the query's field",
  year: "the query's publication year",
  references: "the number of the query's references in the pool (judged relevant), in bins",
  citations: "the quartile of how often the query's referenced articles are cited in the corpus (their mean; Q1 the least cited)",
};

/** The slices the report shows: the dataset level when there is one, the paper's setting, the largest pool, the first measure. */
export function reportSlices(r: ResultsIndex): SliceRecordRow[] {
  const rows = storedSignificance(r)?.slices ?? [];
  if (!rows.length) return [];
  const protocol = rows.some((x) => x.protocol === 'dataset') ? 'dataset' : 'field';
  const setting = rows.some((x) => x.protocol === protocol && x.setting === 'transductive') ? 'transductive' : 'inductive';
  const of = rows.filter((x) => x.protocol === protocol && x.setting === setting);
  const pool = Math.max(...of.map((x) => x.poolSize));
  const measure = r.measures.find((m) => of.some((x) => x.measure === m)) ?? of[0].measure;
  return of.filter((x) => x.poolSize === pool && x.measure === measure);
}

/** One table per attribute of reportSlices: slices × (n, each model's mean [95 % CI], and Δ to the baseline [95 % CI]). */
export function sliceTables(r: ResultsIndex): ReportTable[] {
  const rows = reportSlices(r);
  if (!rows.length) return [];
  const { protocol, setting, poolSize, measure } = rows[0];
  const baseline = rows.find((x) => x.baseline)?.baseline ?? rows[0].model;
  const attributes = [...new Set(rows.map((x) => x.attribute))];
  return attributes.map((attribute) => {
    const part = rows.filter((x) => x.attribute === attribute);
    const models = [...new Set(part.map((x) => x.model))];
    const slices = [...new Set(part.map((x) => x.slice))];
    const others = models.filter((m) => m !== baseline);
    const body: TableRow[] = slices.map((slice) => {
      const of = part.filter((x) => x.slice === slice);
      const b = of.find((x) => x.model === baseline);
      const n = b?.queries ?? Math.max(...of.map((x) => x.queries));
      return {
        label: slice,
        cells: [
          num(String(n)),
          { kind: 'value', value: b ? 100 * b.mean : undefined }, num(intervalText(b?.ci95 ?? undefined)),
          ...others.flatMap((m): TableCell[] => {
            const x = of.find((y) => y.model === m);
            if (!x) return [{ kind: 'value' }, num('–')];
            const d = x.meanDiff === undefined || Number.isNaN(x.meanDiff) ? '–' : `${signed(x.meanDiff)} ${intervalText(x.diffCi95 ?? undefined)}`;
            return [{ kind: 'value', value: 100 * x.mean }, num(d)];
          }),
        ],
      };
    });
    return {
      id: `slices-${slug(attribute)}`,
      title: `${measure} by ${attribute}`,
      rowHead: attribute, plain: true,
      intro: `${measure} (×100) of the test queries grouped by ${ATTRIBUTE_TEXT[attribute] ?? attribute} (${protocolText(protocol)}, ${poolLabel(poolSize)} pool${setting === 'inductive' ? ', inductive setting' : ''}): ` +
        `n, the queries of the group; ${baseline}'s mean with its 95 % t-interval over them; every other model's mean and its mean difference to ${baseline} (Δ) with the 95 % t-interval of the paired differences. ` +
        'Other measures, protocols and pool sizes: results.json (significance.slices), res.slices in a notebook.',
      groups: [{ text: '', span: 1 }, { text: baseline, span: 2 }, ...others.map((m) => ({ text: m, span: 2 }))],
      columns: ['n', 'mean', '95% CI', ...others.flatMap(() => ['mean', 'Δ [95% CI]'])],
      rows: body,
    } satisfies ReportTable;
  });
}
