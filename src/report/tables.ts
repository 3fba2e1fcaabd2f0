/**
 * Result tables in the paper's layout (values ×100, one decimal), as Markdown, with the paper's own numbers
 * side by side when ../shared/reference/paper-numbers.json (or a given file) is available.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { MeanRow } from './results-format.ts';

export function poolLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

/** Table 1 layout: one row per model, columns pool size × measure. */
export function datasetLevelTable(rows: MeanRow[], measures: string[]): string {
  const sizes = [...new Set(rows.map((r) => r.poolSize))].sort((a, b) => a - b);
  const models = [...new Set(rows.map((r) => r.model))];
  const head = ['model', ...sizes.flatMap((s) => measures.map((m) => `${poolLabel(s)} ${m}`))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i ? '---:' : '---')).join('|')}|`];
  for (const model of models) {
    const cells = sizes.flatMap((s) => {
      const r = rows.find((x) => x.model === model && x.poolSize === s);
      return measures.map((m) => (r ? (100 * r.means[m]).toFixed(1) : '–'));
    });
    lines.push(`| ${model} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export interface PaperNumbers {
  table1_dataset_level: { values: Record<string, Record<string, Record<string, number>>> };
  [k: string]: unknown;
}

/** The paper's numbers, if the reference file is present (it lives in ../shared, never in the repository). */
export function loadPaperNumbers(path: string): PaperNumbers | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as PaperNumbers) : undefined;
}

/** The paper's Table 1 in the same layout, for the models and sizes given. */
export function paperTable1(paper: PaperNumbers, models: string[], sizes: string[], measures: string[]): string {
  const head = ['model (paper)', ...sizes.flatMap((s) => measures.map((m) => `${s} ${m}`))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i ? '---:' : '---')).join('|')}|`];
  for (const model of models) {
    const v = paper.table1_dataset_level.values[model];
    if (!v) continue;
    lines.push(`| ${model} | ${sizes.flatMap((s) => measures.map((m) => (v[s]?.[m] ?? '–').toString())).join(' | ')} |`);
  }
  return lines.join('\n');
}
