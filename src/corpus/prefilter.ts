/**
 * The paper's prefilter (§3): drop articles with (1) no publication year, (2) an empty title, (3) an abstract
 * shorter than 30 characters, or (4) fewer than three citations in S2ORC.
 *
 * "Citations" of an article: the paper does not say which direction. citebench counts, by default, the
 * article's INBOUND citations — how many articles of the input corpus cite it (the usual meaning of "citation
 * count") — over the citation graph of the whole input corpus before any filtering (S2ORC's own inbound and
 * outbound lists, merged and deduplicated, restricted to ids present in the input; self-citations ignored).
 * `direction` switches to outbound (references it makes), `both` (in + out) or `either` (max of the two).
 * Rules are applied independently; an article failing several is counted under each rule, and once under
 * the first rule it fails ("removed by" counts, which add up to the total removed).
 */
import { CitebenchError } from '../util/errors.ts';
import type { ValidationReport } from './validation.ts';

export type CitationDirection = 'inbound' | 'outbound' | 'both' | 'either';

export interface PrefilterConfig {
  requireYear: boolean;
  requireTitle: boolean;
  minAbstractChars: number;
  minCitations: number;
  citationDirection: CitationDirection;
  /**
   * Where citations are counted. 'corpus' (default): links between articles of the input corpus — for the
   * full S2ORC this is exactly "citations in S2ORC". 'record': the lengths of the record's own S2ORC citation
   * lists (distinct ids), which keeps the paper's meaning when the input is only a subset of S2ORC.
   */
  citationScope: 'corpus' | 'record';
}

export const PAPER_PREFILTER: PrefilterConfig = {
  requireYear: true,
  requireTitle: true,
  minAbstractChars: 30,
  minCitations: 3,
  citationDirection: 'inbound',
  citationScope: 'corpus',
};

/**
 * The config with its keys in one order (this interface's), whatever order the caller's object had: the store's
 * meta.json records it, and corpus stamps hash that file, so the same rules always write the same bytes.
 */
export function canonicalPrefilter(c: PrefilterConfig): PrefilterConfig {
  return {
    requireYear: c.requireYear, requireTitle: c.requireTitle, minAbstractChars: c.minAbstractChars, minCitations: c.minCitations,
    citationDirection: c.citationDirection, citationScope: c.citationScope,
  };
}

export const RULES = ['no-year', 'empty-title', 'short-abstract', 'few-citations'] as const;
export type Rule = (typeof RULES)[number];

/** Bit flags of the text rules (1–3), decided while reading each record. */
export const FAIL_YEAR = 1;
export const FAIL_TITLE = 2;
export const FAIL_ABSTRACT = 4;
const FAIL_CITATIONS = 8;

export function textRuleFlags(cfg: PrefilterConfig, title: string, abstract: string, year: number | undefined): number {
  let f = 0;
  if (cfg.requireYear && year === undefined) f |= FAIL_YEAR;
  if (cfg.requireTitle && title.trim().length === 0) f |= FAIL_TITLE;
  // Characters are counted as Unicode code points of the trimmed abstract.
  if (cfg.minAbstractChars > 0 && codePointLength(abstract.trim()) < cfg.minAbstractChars) f |= FAIL_ABSTRACT;
  return f;
}

function citationCount(dir: CitationDirection, inDeg: number, outDeg: number): number {
  switch (dir) {
    case 'inbound':
      return inDeg;
    case 'outbound':
      return outDeg;
    case 'both':
      return inDeg + outDeg;
    case 'either':
      return Math.max(inDeg, outDeg);
  }
}

export interface PrefilterReport {
  config: PrefilterConfig;
  input: number;
  kept: number;
  removed: number;
  /** Articles failing each rule (an article can fail several). */
  failing: Record<Rule, number>;
  /** Articles removed, attributed to the first rule they fail (sums to `removed`). */
  removedBy: Record<Rule, number>;
}

/** Apply rule 4 on top of the text flags; returns the keep mask and the report. */
export function applyPrefilter(
  cfg: PrefilterConfig,
  flags: Uint8Array,
  inDeg: Uint32Array,
  outDeg: Uint32Array,
): { keep: Uint8Array; report: PrefilterReport } {
  const n = flags.length;
  const keep = new Uint8Array(n);
  const failing: Record<Rule, number> = { 'no-year': 0, 'empty-title': 0, 'short-abstract': 0, 'few-citations': 0 };
  const removedBy: Record<Rule, number> = { 'no-year': 0, 'empty-title': 0, 'short-abstract': 0, 'few-citations': 0 };
  let kept = 0;
  for (let i = 0; i < n; i++) {
    let f = flags[i];
    if (citationCount(cfg.citationDirection, inDeg[i], outDeg[i]) < cfg.minCitations) f |= FAIL_CITATIONS;
    if (f === 0) {
      keep[i] = 1;
      kept++;
      continue;
    }
    let first = true;
    RULES.forEach((rule, r) => {
      if (f & (1 << r)) {
        failing[rule]++;
        if (first) removedBy[rule]++;
        first = false;
      }
    });
  }
  return { keep, report: { config: cfg, input: n, kept, removed: n - kept, failing, removedBy } };
}

/** One row per rule: its label (with the configured thresholds), the articles failing it and those it removed first. */
export function prefilterRows(r: PrefilterReport): { rule: string; failing: number; removed: number }[] {
  const c = r.config;
  const label: Record<Rule, string> = {
    'no-year': 'no year',
    'empty-title': 'empty title',
    'short-abstract': `abstract < ${c.minAbstractChars} chars`,
    'few-citations': `< ${c.minCitations} ${c.citationDirection} citations`,
  };
  return RULES.map((rule) => ({ rule: label[rule], failing: r.failing[rule], removed: r.removedBy[rule] }));
}

export function formatPrefilterReport(r: PrefilterReport): string {
  const lines = [
    `prefilter: ${r.input} articles in, ${r.kept} kept, ${r.removed} removed`,
    `  rule                       failing   removed (first failing rule)`,
  ];
  for (const x of prefilterRows(r)) lines.push(`  ${x.rule.padEnd(25)} ${String(x.failing).padStart(9)} ${String(x.removed).padStart(9)}`);
  return lines.join('\n');
}

/**
 * A build that would keep no article: an empty store only fails later (no queries to sample) or, worse, looks
 * like a finished corpus. The message says which rules removed the articles and, when rule 4 counted links
 * inside an input that cites outside itself (a subset of S2ORC), suggests the record scope.
 */
export class EmptyCorpusError extends CitebenchError {
  constructor(
    readonly input: string,
    readonly validation: ValidationReport,
    readonly prefilter: PrefilterReport | null,
  ) {
    super(emptyCorpusMessage(input, validation, prefilter));
  }
}

function emptyCorpusMessage(input: string, v: ValidationReport, pf: PrefilterReport | null): string {
  if (!pf || pf.input === 0) {
    return `${input}: no article to build a corpus from (${v.recordsRead} records read, ${v.recordsAccepted} valid; see 'citebench corpus validate --input ${input}')`;
  }
  const c = pf.config;
  const label: Record<Rule, string> = {
    'no-year': 'no year',
    'empty-title': 'empty title',
    'short-abstract': `abstract < ${c.minAbstractChars} chars`,
    'few-citations': `< ${c.minCitations} ${c.citationDirection} citations (${c.citationScope} scope)`,
  };
  const by = RULES.filter((r) => pf.removedBy[r] > 0).map((r) => `${label[r]}: ${pf.removedBy[r]}`).join(', ');
  let msg = `${input}: the prefilter kept 0 of ${pf.input} articles (removed by first failing rule: ${by}; articles failing ${label['few-citations']}: ${pf.failing['few-citations']})`;
  if (c.citationScope === 'corpus' && pf.failing['few-citations'] > 0) {
    const outside = v.count('unknown-citation');
    msg +=
      `. Rule 4 counted citations between input articles only${outside ? `, and ${outside} citations point outside the input` : ''}: ` +
      `if the input is a subset of S2ORC, use --citation-scope record (each record's own S2ORC citation lists)`;
  }
  return msg;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}
