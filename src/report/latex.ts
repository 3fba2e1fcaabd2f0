/**
 * The report's tables as LaTeX, for the analyst's own paper: one more rendering of the ReportTable objects that
 * tables.ts renders as Markdown and html.ts as HTML (report-tables.ts builds them; nothing here computes or
 * re-reads a number). Each table is a booktabs `table` (`table*` when wide) with a caption that says what the
 * numbers are and where they come from (a synthetic corpus says so), a \label, the best value per column bold,
 * ± sd where the report shows it, and the stored significance decisions as one superscript letter per baseline
 * (ranx's style) with their legend in the caption. The paper's values never enter our cells: with `paper` the
 * paper's own tables are written as tables of their own, as the Markdown report prints them.
 *
 * Every string is escaped for LaTeX and written as ASCII (accented letters as accent commands, Greek as math,
 * Cyrillic transliterated, other scripts as code points), so a table compiles under pdflatex with any input or
 * font encoding and needs only booktabs and graphicx: under T1 every Latin letter is the font's own; ą ę, which
 * LaTeX has only in T1, carry a drawn fallback for OT1 (LATEX_FALLBACKS).
 */
import { corpusSourceText, resultsFieldScheme, SIGNIFICANCE_ALPHA, type ResultsIndex } from './results.ts';
import { fmtValue, tableBaselines, type MarkedRow, type ReportTable, type TableCell } from './tables.ts';
import { paperFieldTableData, paperMdcrTablesData, paperTable1Data } from './tables.ts';
import { adjustedP, adjustedRandP, marksLegend } from './significance.ts';
import type { PaperNumbers } from './paper-numbers.ts';

/** The packages a table file needs, named in its first line. */
export const LATEX_PACKAGES = ['booktabs', 'graphicx'] as const;

export interface LatexOptions {
  /** Decimals of the values (default 1, as the report prints them). */
  digits?: number;
  /** Which stored test a baseline's letter stands for (default the paired t-test, Holm-corrected). */
  test?: 't' | 'randomization';
  /** Said in the caption: where the numbers come from (latexProvenance gives it for a results index). */
  provenance?: string;
  /** Print ± sd where the report does (default true). */
  sd?: boolean;
}

// Only characters of the Type 1 fonts texlive-latex-recommended brings (OT1 text, math): \$, \dag, \S and \P come
// from the TS1 (textcomp) fonts in today's LaTeX, which pdflatex would draw as bitmaps there; their math forms are vector.
// Letters that pdflatex's default (OT1) fonts draw with a macro of their own.
const SPECIAL_LETTERS: Record<string, string> = {
  'ß': '\\ss{}', 'æ': '\\ae{}', 'Æ': '\\AE{}', 'œ': '\\oe{}', 'Œ': '\\OE{}', 'ø': '\\o{}', 'Ø': '\\O{}', 'ł': '\\l{}', 'Ł': '\\L{}',
  'ı': '\\i{}', 'ȷ': '\\j{}', 'å': '\\aa{}', 'Å': '\\AA{}', 'đ': 'd', 'Đ': 'D', 'ð': 'd', 'Ð': 'D', 'þ': 'th', 'Þ': 'Th',
};
// Combining marks (after NFD) → LaTeX accent commands.
const ACCENTS: Record<string, string> = {
  '\u0300': '`', '\u0301': "'", '\u0302': '^', '\u0303': '~', '\u0304': '=', '\u0306': 'u', '\u0307': '.', '\u0308': '"',
  '\u030A': 'r', '\u030B': 'H', '\u030C': 'v', '\u0327': 'c', '\u0328': 'k', '\u0323': 'd', '\u0331': 'b',
};
const GREEK = 'αβγδεζηθικλμνξοπρστυφχψω';
const GREEK_NAMES = ['\\alpha', '\\beta', '\\gamma', '\\delta', '\\epsilon', '\\zeta', '\\eta', '\\theta', '\\iota', '\\kappa', '\\lambda', '\\mu', '\\nu', '\\xi', 'o', '\\pi', '\\rho', '\\sigma', '\\tau', '\\upsilon', '\\phi', '\\chi', '\\psi', '\\omega'];
const GREEK_UPPER: Record<string, string> = { 'Γ': 'Gamma', 'Δ': 'Delta', 'Θ': 'Theta', 'Λ': 'Lambda', 'Ξ': 'Xi', 'Π': 'Pi', 'Σ': 'Sigma', 'Υ': 'Upsilon', 'Φ': 'Phi', 'Ψ': 'Psi', 'Ω': 'Omega' };
// Cyrillic: transliterated (ISO 9's scientific letters without diacritics), the documented fallback of a script
// with no Type 1 font in texlive-latex-recommended.
const CYRILLIC = 'абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґўђјљњћџѕ';
const CYRILLIC_LATIN = ['a', 'b', 'v', 'g', 'd', 'e', 'e', 'zh', 'z', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'r', 's', 't', 'u', 'f', 'kh', 'c', 'ch', 'sh', 'shch', "''", 'y', "'", 'e', 'ju', 'ja', 'i', 'ji', 'je', 'g', 'u', 'dj', 'j', 'lj', 'nj', 'c', 'dzh', 'dz'];
// Greek capitals that Latin letters draw alike.
const GREEK_LATIN: Record<string, string> = { 'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Χ': 'X' };
const SYMBOLS: Record<string, string> = {
  '×': '$\\times$', '±': '$\\pm$', '–': '--', '—': '---', '−': '$-$', '§': '\\ensuremath{\\mathsection}', '¶': '\\ensuremath{\\mathparagraph}', '…': '\\dots{}', '·': '$\\cdot$',
  '‘': '`', '’': "'", '“': '``', '”': "''", '„': ',,', '«': '\\textless{}\\textless{}', '»': '\\textgreater{}\\textgreater{}', '≤': '$\\le$', '≥': '$\\ge$', '≈': '$\\approx$', '≠': '$\\neq$',
  '→': '$\\to$', '←': '$\\leftarrow$', '↔': '$\\leftrightarrow$', '▲': '$\\bigtriangleup$', '▼': '$\\bigtriangledown$', '†': '\\ensuremath{\\dagger}', '‡': '\\ensuremath{\\ddagger}',
  '°': '$^\\circ$', 'µ': '$\\mu$', '\u00A0': '~', '\u2009': '\\,', '\u202F': '\\,', '€': 'EUR', '£': 'GBP', '©': '(c)', '•': '$\\bullet$',
  '⁑': '**', '‖': '$\\|$', '¹': '$^1$', '²': '$^2$', '³': '$^3$', '½': '1/2', '¼': '1/4', '¾': '3/4', '¿': '?`', '¡': '!`',
};
const ASCII_SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}', '{': '\\{', '}': '\\}', '$': '\\ensuremath{\\$}', '&': '\\&', '#': '\\#', '%': '\\%', '_': '{\\ttfamily\\char95}',
  '^': '\\^{}', '~': '\\~{}', '<': '\\textless{}', '>': '\\textgreater{}', '|': '\\textbar{}', '"': "''",
};

/**
 * Any text as LaTeX that pdflatex typesets as that text: the ten special characters escaped, accented letters as
 * accent commands (Š → \v{S}), Greek as math, common symbols as their commands; a character with no LaTeX form
 * in the base fonts becomes its code point in brackets ([U+4E2D]) rather than an error.
 */
export function latexText(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code < 128) {
      // `-` beside another would join into a dash ligature; `` ` `` and `'` pairs into quotes: kept apart.
      // A quote opening a word is LaTeX's opening quote (` or ``), not the closing one ' prints.
      const opens = (ch === "'" || ch === '"') && (out === '' || /[\s([{~]$/.test(out));
      if (opens) out += ch === "'" ? '`' : '``';
      else if (ASCII_SPECIAL[ch]) out += ASCII_SPECIAL[ch];
      else if (ch === '-' && out.endsWith('-')) out += '{}-';
      else if (code < 32) out += ' ';
      else out += ch;
      continue;
    }
    if (SPECIAL_LETTERS[ch]) { out += SPECIAL_LETTERS[ch]; continue; }
    if (SYMBOLS[ch]) { out += SYMBOLS[ch]; continue; }
    const g = GREEK.indexOf(ch);
    if (g >= 0) { out += `$${GREEK_NAMES[g]}$`; continue; }
    if (ch === 'ς') { out += '$\\varsigma$'; continue; }
    if (GREEK_UPPER[ch]) { out += `$\\${GREEK_UPPER[ch]}$`; continue; }
    if (GREEK_LATIN[ch]) { out += GREEK_LATIN[ch]; continue; }
    const cy = CYRILLIC.indexOf(ch.toLowerCase());
    if (cy >= 0) {
      const l = CYRILLIC_LATIN[cy];
      out += ch === ch.toLowerCase() ? l : l.charAt(0).toUpperCase() + l.slice(1);
      continue;
    }
    // Greek letters with accents (ά, Ώ): the letter without them.
    const bare = ch.normalize('NFD')[0];
    if (bare !== ch && (GREEK.includes(bare) || GREEK_UPPER[bare] || GREEK_LATIN[bare])) { out += latexText(bare); continue; }
    const d = ch.normalize('NFD');
    const base = d[0];
    const marks = [...d.slice(1)];
    if (d.length > 1 && base.codePointAt(0)! < 128 && /[A-Za-z]/.test(base) && marks.every((m) => ACCENTS[m])) {
      // Accents nest innermost first: ǘ → \'{\"{u}}. i and j lose their dot under an accent.
      let x = base === 'i' ? '\\i{}' : base === 'j' ? '\\j{}' : base;
      for (const m of marks) x = `\\${ACCENTS[m]}{${x}}`;
      out += x;
      continue;
    }
    if (/\s/u.test(ch)) { out += ' '; continue; }
    out += `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
  }
  // A cell opening with `[` after the last row's `\\\\` would be read as that command's optional argument.
  return out.startsWith('[') ? `{}${out}` : out;
}

/**
 * What a table needs beyond its packages: LaTeX's `\\k` (ogonek: ą, ę, Ą, Ę) exists only in the T1 encoding. Under
 * T1 the font's own letter prints; in a document left in OT1 (pdflatex's default) this default draws the letter
 * with a mirrored cedilla instead of stopping with "Command \\k unavailable in encoding OT1". It applies only where
 * the document's encoding has no \\k of its own.
 */
export const LATEX_FALLBACKS = '\\ProvideTextCommandDefault{\\k}[1]{\\leavevmode\\ooalign{#1\\crcr\\hidewidth\\reflectbox{\\char24}\\kern.03em\\crcr}}';

/** A label safe in \label and \ref: the table id's letters, digits and dashes. */
export const latexLabel = (id: string) => `tab:citebench-${id.replace(/[^A-Za-z0-9-]/g, '-')}`;

/** Baseline i's letter (a, b, … z, then aa, ab …). */
export function baselineLetter(i: number): string {
  const a = 'abcdefghijklmnopqrstuvwxyz';
  return i < 26 ? a[i] : a[Math.floor(i / 26) - 1] + a[i % 26];
}

const decided = (s: MarkedRow, test: 't' | 'randomization') => (test === 't' ? adjustedP(s) : adjustedRandP(s)) < SIGNIFICANCE_ALPHA;

/** Where the numbers of a results index come from, for every caption: a synthetic corpus says so. */
export function latexProvenance(r: ResultsIndex): string {
  if (r.corpus.kind === 'synthetic') {
    const s = r.corpus.synthetic!;
    return `Synthetic corpus (${s.articles.toLocaleString('en-US')} generated articles, seed ${s.seed}): the values are properties of the generator, not findings about scientific literature.`;
  }
  return `Corpus: ${r.corpus.source ? corpusSourceText(r.corpus.source) : 'a corpus store of real data'}, ${r.corpus.articles} prefiltered articles.`;
}

/** The caption's sentences after the table's own intro: bold, ± and each baseline's letter. */
function legendSentences(t: ReportTable, opts: LatexOptions, withSd: boolean): string {
  if (t.paperOnly || t.plain) return '';
  const test = opts.test ?? 't';
  const baselines = tableBaselines(t);
  const out = ['Bold: the best value in the column' + (t.id.startsWith('table3') ? ' (here: the best model in the row, per measure).' : '.')];
  if (withSd) out.push(`$\\pm$${t.columns.length > WIDE_COLUMNS ? ' (under each value)' : ''}: standard deviation over pool samples.`);
  if (baselines.length) {
    out.push(marksLegend(baselines, {
      head: 'Superscripts mark a significant difference: ',
      each: (b, i) => `$^{\\mathrm{${baselineLetter(i)}}}$ against ${latexText(b.name)}`,
      sep: ', ',
      test: test === 't' ? 'paired t-test' : 'paired randomization test',
      repeats: 'pool samples',
      p: `$p < ${SIGNIFICANCE_ALPHA}$`,
      tail: '.',
      text: latexText,
    }));
  }
  return out.join(' ');
}

/** A table of the paper's or another work's values (not a table of this run, such as the field names of Table 5). */
const isPublished = (t: ReportTable) => t.id.startsWith('paper-') || (!!t.paperOnly && t.rows.some((x) => x.cells.some((c) => c.kind === 'value')));

/** More columns than this: a `table*` (both columns of a two-column paper) in smaller type. */
const WIDE_COLUMNS = 8;

/**
 * One report table as a LaTeX `table` environment (see the file comment). The first line names the packages it
 * needs; the tabular shrinks to the line width only when it is wider.
 */
export function tableLatex(t: ReportTable, opts: LatexOptions = {}): string {
  const digits = opts.digits ?? 1;
  const test = opts.test ?? 't';
  const order = tableBaselines(t).map((b) => b.name);
  const withSd = opts.sd !== false && t.rows.some((r) => r.cells.some((c) => c.kind === 'value' && c.sd !== undefined));
  const ncols = t.columns.length;
  const wide = ncols > WIDE_COLUMNS;
  // Beside the value in a narrow table; in a wide one on a line of its own under the row, or it would not fit.
  const sdOwnRow = withSd && wide;
  const sdText = (c: TableCell) => (c.kind === 'value' && c.sd !== undefined && c.value !== undefined ? `{\\scriptsize$\\pm$${fmtValue(c.sd, digits)}}` : '');
  const value = (c: TableCell): string => {
    if (c.kind === 'text') return latexText(c.text);
    if (c.value === undefined || Number.isNaN(c.value)) return '--';
    const v = fmtValue(c.value, digits);
    let s = c.best && !t.paperOnly ? `\\textbf{${v}}` : v;
    if (withSd && !sdOwnRow && c.sd !== undefined) s += `\\,${sdText(c)}`;
    const letters = (c.sig ?? []).filter((x) => decided(x, test)).map((x) => baselineLetter(order.indexOf(x.baseline))).sort().join('');
    if (letters) s += `$^{\\mathrm{${letters}}}$`;
    if (c.letters) s += `$^{\\mathrm{${c.letters}}}$`;
    return s;
  };
  const env = wide ? 'table*' : 'table';
  // A column of words is left-aligned, a column of numbers right-aligned.
  const isWords = (c: TableCell | undefined) => c?.kind === 'text' && !c.num;
  const align = `l${t.columns.map((_, j) => (t.rows.some((r) => isWords(r.cells[j])) ? 'l' : 'r')).join('')}`;
  const lines: string[] = [];
  lines.push(`% citebench ${t.id}: needs ${LATEX_PACKAGES.map((p) => `\\usepackage{${p}}`).join(' ')}`);
  lines.push(`\\begin{${env}}[tbp]`, '\\centering');
  // LaTeX numbers the tables itself: the caption names the paper's table instead of repeating a number.
  const head = t.id.startsWith('paper-') ? '' : `${latexText(t.title)}${t.number ? `, in the layout of the paper's Table ${t.number}` : ''}.`;
  const caption = [head, latexText(t.intro.replace(/:$/, '.')), legendSentences(t, opts, withSd), opts.provenance && !isPublished(t) ? latexText(opts.provenance) : '']
    .filter(Boolean).join(' ');
  lines.push(`\\caption{${caption}}`, `\\label{${latexLabel(t.id)}}`, '\\medskip');
  lines.push(wide ? '\\scriptsize' : '\\small', '\\setlength{\\tabcolsep}{' + (wide ? '3pt' : '4pt') + '}');
  // Shrunk to the line only when wider than it: a narrow table keeps its type size.
  lines.push('\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%');
  lines.push(`\\begin{tabular}{${align}}`, '\\toprule');
  if (t.groups) {
    let col = 2;
    const heads = t.groups.map((g) => `\\multicolumn{${g.span}}{c}{${latexText(g.text)}}`);
    const rules = t.groups.map((g) => {
      const r = `\\cmidrule(lr){${col}-${col + g.span - 1}}`;
      col += g.span;
      return r;
    });
    lines.push(`& ${heads.join(' & ')} \\\\`, rules.join(''));
  }
  lines.push(`${[t.rowHead, ...t.columns].map(latexText).join(' & ')} \\\\`, '\\midrule');
  for (const r of t.rows) {
    const label = latexText(r.label) + (r.note ? ` {\\footnotesize(${latexText(r.note)})}` : '');
    lines.push(`${[label, ...r.cells.map(value)].join(' & ')} \\\\`);
    if (sdOwnRow && r.cells.some((c) => sdText(c))) lines.push(`${['', ...r.cells.map(sdText)].join(' & ')} \\\\[1pt]`);
  }
  lines.push('\\bottomrule', '\\end{tabular}}', `\\end{${env}}`, '');
  // Ogonek letters: the OT1 fallback declared before the float (a no-op under T1).
  if (lines.some((l) => l.includes('\\k{'))) lines.splice(1, 0, LATEX_FALLBACKS);
  return lines.join('\n');
}

/** The paper's own tables that follow ours (with `paper`), as the Markdown report places them: our table id → the paper's. */
export function paperTablesFor(r: ResultsIndex, paper: PaperNumbers): Map<string, ReportTable> {
  const out = new Map<string, ReportTable>();
  const sizes = ['200k', '500k', '1M', '2M'];
  out.set('table1', paperTable1Data(paper, sizes, r.measures.filter((m) => ['MAP', 'nDCG', 'R@30'].includes(m))));
  // The paper's field-level and MDCR tables are over MAG's fields: none follows a table over other fields.
  if (resultsFieldScheme(r) === 'mag') {
    for (const n of [2, 7, 8] as const) out.set(`table${n}`, paperFieldTableData(paper, n));
    const [t3, t4] = paperMdcrTablesData(paper);
    out.set('table3', t3);
    out.set('table4', t4);
  }
  return out;
}

export interface LatexFile {
  /** File name inside tables/ (table1.tex …). */
  file: string;
  table: ReportTable;
  tex: string;
}

/**
 * Every table of the report as a LaTeX file, in the report's order; the paper's own values only with `paper`
 * (its tables after ours, and the tables of published numbers), never otherwise.
 */
export function latexFiles(r: ResultsIndex, tables: ReportTable[], opts: LatexOptions & { paper?: PaperNumbers } = {}): LatexFile[] {
  const o: LatexOptions = { ...opts, provenance: opts.provenance ?? latexProvenance(r) };
  const papers = opts.paper ? paperTablesFor(r, opts.paper) : new Map<string, ReportTable>();
  const out: LatexFile[] = [];
  for (const t of tables) {
    // Tables of published values (the paper's Table 6, the SPECTER2 card): paper values, so only with `paper` (the report passes it unless --no-latex-paper-values).
    if (isPublished(t) && !opts.paper) continue;
    out.push({ file: `${t.id}.tex`, table: t, tex: tableLatex(t, o) });
    const p = papers.get(t.id);
    if (p) out.push({ file: `${p.id}.tex`, table: p, tex: tableLatex(p, o) });
  }
  return out;
}

/**
 * tables.tex: a complete document that \inputs every table file. pdflatex looks for an \input file relative to the
 * directory it runs in, so the table files are looked for there first, then in `dir` (the folder tables.tex is
 * written to, when given): `pdflatex DIR/tables/tables.tex` finds them from anywhere, and the folder still
 * compiles on its own after it is moved. A page break follows each table so no float waits.
 */
export function tablesDocument(files: LatexFile[], title: string, dir?: string): string {
  // A path inside \input@path must not hold TeX's special characters; such a folder is found only from itself.
  const abs = dir && /^[A-Za-z0-9_./:+=@,\\-]+$/.test(dir) ? `{${dir.replace(/\\/g, '/').replace(/\/?$/, '/')}}` : '';
  return [
    '% citebench: every table of the report; compile with pdflatex (booktabs and graphicx: texlive-latex-recommended).',
    '\\documentclass{article}',
    `\\usepackage{${LATEX_PACKAGES.join(',')}}`,
    // T1 (every Latin letter its own glyph, ą ę ł among them) with Latin Modern's Type 1 fonts where they are
    // installed (Debian's lmodern); else pdflatex's OT1 with LATEX_FALLBACKS, never T1's bitmap EC fonts.
    '\\IfFileExists{lmodern.sty}{\\usepackage[T1]{fontenc}\\usepackage{lmodern}}{}',
    '\\usepackage[utf8]{inputenc}',
    '\\usepackage[margin=2cm]{geometry}',
    '\\makeatletter',
    `\\def\\input@path{{./}${abs}}`,
    // Pages of one table each: the table at the top of its page, not centred.
    '\\setlength\\@fptop{0pt}',
    '\\makeatother',
    '\\begin{document}',
    `\\section*{${latexText(title)}}`,
    `The ${files.length} tables of the report, one per page; each is a file of its own beside this one (\\texttt{\\textbackslash input} it in a paper that loads ${LATEX_PACKAGES.map((p) => `\\texttt{${p}}`).join(' and ')}).`,
    '\\clearpage',
    ...files.flatMap((f) => [`\\input{${f.file.replace(/\.tex$/, '')}}`, '\\clearpage']),
    '\\end{document}',
    '',
  ].join('\n');
}
