/**
 * What a notebook shows while a call computes: one line per stage of the run ([corpus], [index], [tune],
 * [cells] …), rewritten in place with its count, rate and ETA (where the stage's total is known), and left as one
 * summary line when the stage ends — instead of the hundreds of lines `citebench run` logs. Every line goes in
 * full to a log file (the results folder's run.log). The command line keeps its own log (run.ts); nothing here
 * changes what a run computes.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fmtCount, fmtDuration } from '../util/progress.ts';

export interface NotebookLogOptions {
  /** The full log (created or truncated). */
  file: string;
  /** Where the progress lines go (default stdout: a notebook's stream output). */
  write?: (s: string) => void;
  /** Items each stage will log, where known beforehand (e.g. cells: groups × models). */
  totals?: Record<string, number>;
  /** How a line is shown (e.g. paths inside the repository made relative). */
  show?: (line: string) => string;
  now?: () => number;
}

// A line that finishes one item of work: "…: map 77.1 (1.2 s)".
const FINISHED = /\(\d+(?:\.\d+)? s\)$/;
// Stages whose lines come in pairs (started, finished): only the finishing one counts.
const PAIRED = new Set(['tune', 'cells', 'beir']);
const UNITS: Record<string, string> = { tune: 'grid points', cells: 'cells', beir: 'cells' };

interface Stage {
  name: string;
  start: number;
  count: number;
  total?: number;
  last: string;
  drawn: number;
}

export class NotebookLog {
  private stage?: Stage;
  private width = 0;
  private readonly write: (s: string) => void;
  private readonly now: () => number;
  private readonly show: (line: string) => string;

  constructor(private readonly opts: NotebookLogOptions) {
    this.write = opts.write ?? ((s) => process.stdout.write(s));
    this.now = opts.now ?? (() => performance.now());
    this.show = opts.show ?? ((l) => l);
    mkdirSync(dirname(opts.file), { recursive: true });
    writeFileSync(opts.file, '');
  }

  /** Takes one log line of the run (pass as its `log`). */
  readonly log = (line: string): void => {
    appendFileSync(this.opts.file, `${line}\n`);
    const m = /^\[([A-Za-z0-9_-]+)\] ?(.*)$/.exec(line);
    if (!m) {
      // A line of no stage (where the results go, a reused folder): said as it is.
      this.end();
      this.print(this.show(line));
      return;
    }
    const [, name, text] = m;
    if (this.stage?.name !== name) {
      this.end();
      this.stage = { name, start: this.now(), count: 0, total: this.opts.totals?.[name], last: text.trim(), drawn: -Infinity };
    }
    const s = this.stage!;
    // A tuned model announces its grid: "bm25-tuned: 16 points (…)".
    const points = name === 'tune' ? /: (\d+) points\b/.exec(text) : null;
    if (points) s.total = (s.total ?? 0) + Number(points[1]);
    if (!PAIRED.has(name) || FINISHED.test(text)) s.count++;
    s.last = text.trim();
    const t = this.now();
    if (t - s.drawn >= 250) {
      s.drawn = t;
      this.draw(this.progress(s, t));
    }
  };

  /** Ends the current stage's line with its summary, and says where the full log is. */
  close(): void {
    this.end();
    this.print(`full log: ${this.show(this.opts.file)}`);
  }

  /** "[cells] 12/48 cells, 3.1/s, ETA 12s — <the last line>"; a stage of no countable items shows its time. */
  private progress(s: Stage, t: number): string {
    const secs = Math.max((t - s.start) / 1000, 1e-3);
    const last = this.show(s.last).slice(0, 100);
    if (!PAIRED.has(s.name)) return `[${s.name}] ${secs.toFixed(0)}s — ${last}`;
    const rate = s.count / secs;
    const unit = UNITS[s.name];
    const count = s.total ? `${fmtCount(s.count)}/${fmtCount(s.total)} ${unit}` : `${fmtCount(s.count)} ${unit}`;
    // A rate over less than a second (or before the first item) says nothing yet.
    const speed = secs >= 1 && s.count ? `, ${rate >= 10 ? fmtCount(rate) : rate.toFixed(1)}/s${s.total ? `, ETA ${fmtDuration(Math.max(0, s.total - s.count) / rate)}` : ''}` : '';
    return `[${s.name}] ${count}${speed} — ${last}`;
  }

  private end(): void {
    const s = this.stage;
    if (!s) return;
    this.stage = undefined;
    const secs = (this.now() - s.start) / 1000;
    const took = secs < 10 ? `${secs.toFixed(1)}s` : fmtDuration(secs);
    this.draw(`[${s.name}] ${PAIRED.has(s.name) ? `${fmtCount(s.count)} ${UNITS[s.name]} in ${took}` : `done in ${took}`} — ${this.show(s.last).slice(0, 160)}`);
    this.write('\n');
    this.width = 0;
  }

  /** Rewrites the current line (a carriage return, the text, blanks over what was longer). */
  private draw(text: string): void {
    this.write(`\r${text}${' '.repeat(Math.max(0, this.width - text.length))}`);
    this.width = text.length;
  }

  private print(line: string): void {
    this.write(`${line}\n`);
  }
}
