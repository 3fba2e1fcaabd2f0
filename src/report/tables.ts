/**
 * Result tables in the paper's layout (values ×100, one decimal), as Markdown, with the paper's own numbers
 * (paper-numbers.ts) side by side.
 */
import type { PaperNumbers } from './paper-numbers.ts';

export function poolLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

/**
 * The paper's Table 1 in the same layout: every model the paper reports, in the paper's order (or only
 * `models`, when given), for the sizes and measures given. Values print as the paper prints them (one decimal).
 */
export function paperTable1(paper: PaperNumbers, sizes: string[], measures: string[], models?: string[]): string {
  const values = paper.table1_dataset_level.values as Record<string, Record<string, Record<string, number>> | undefined>;
  const head = ['model (paper)', ...sizes.flatMap((s) => measures.map((m) => `${s} ${m}`))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i ? '---:' : '---')).join('|')}|`];
  for (const model of models ?? Object.keys(values)) {
    const v = values[model];
    if (!v) continue;
    lines.push(`| ${model} | ${sizes.flatMap((s) => measures.map((m) => (v[s]?.[m] === undefined ? '–' : v[s][m].toFixed(1)))).join(' | ')} |`);
  }
  return lines.join('\n');
}
