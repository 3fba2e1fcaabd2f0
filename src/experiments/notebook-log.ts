/**
 * What a notebook shows while a call computes: one line per job of the run (the corpus's synthesis and build, the
 * BM25 index, each tuned model's grid, the cells …), rewritten in place with its count, rate and ETA from the job's
 * progress events (util/progress.ts, the events the terminal's bar draws), and left as one summary line when the
 * job ends — instead of the hundreds of lines `citebench run` logs. Every log line goes in full to a log file (the
 * results folder's run.log); the last one is shown after the job's count, as it is. The command line keeps its
 * own log (run.ts); nothing here changes what a run computes.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fmtCount, fmtDuration, onProgress, type ProgressEvent } from '../util/progress.ts';

export interface NotebookLogOptions {
  /** The full log (created or truncated). */
  file: string;
  /** Where the progress lines go (default stdout: a notebook's stream output). */
  write?: (s: string) => void;
  /** How a line is shown (e.g. paths inside the repository made relative). */
  show?: (line: string) => string;
  /** Rate limit of redraws in ms (default 250). */
  redrawMs?: number;
  now?: () => number;
}

export class NotebookLog {
  private job?: ProgressEvent;
  private last = '';
  private drawn = -Infinity;
  private width = 0;
  private readonly write: (s: string) => void;
  private readonly now: () => number;
  private readonly show: (line: string) => string;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: NotebookLogOptions) {
    this.write = opts.write ?? ((s) => process.stdout.write(s));
    this.now = opts.now ?? (() => performance.now());
    this.show = opts.show ?? ((l) => l);
    mkdirSync(dirname(opts.file), { recursive: true });
    writeFileSync(opts.file, '');
    this.unsubscribe = onProgress((e) => this.progress(e));
  }

  /** Takes one log line of the run (pass as its `log`): into the file, and shown after the running job's count. */
  readonly log = (line: string): void => {
    appendFileSync(this.opts.file, `${line}\n`);
    this.last = line.trim();
    if (this.job) this.redraw(false);
  };

  /** Says something of its own on a line of its own (where the results go). */
  say(line: string): void {
    this.endJob();
    this.write(`${this.show(line)}\n`);
  }

  /** Ends the current job's line, stops listening, and says where the full log is. */
  close(): void {
    this.endJob();
    this.unsubscribe();
    this.write(`full log: ${this.show(this.opts.file)}\n`);
  }

  private progress(e: ProgressEvent): void {
    if (this.job && this.job.id !== e.id) this.endJob();
    this.job = e;
    if (e.end) this.endJob();
    else this.redraw(false);
  }

  /** "label 12/48 cells, 3.1/s, ETA 12s — <the last log line>"; at the end "label 48 cells in 15s — …". */
  private text(e: ProgressEvent, end: boolean): string {
    const last = this.show(this.last).slice(0, end ? 160 : 100);
    const tail = last ? ` — ${last}` : '';
    if (end) return `[${e.label}] ${fmtCount(e.done)} ${e.unit} in ${e.seconds < 10 ? `${e.seconds.toFixed(1)}s` : fmtDuration(e.seconds)}${tail}`;
    const count = e.total ? `${fmtCount(e.done)}/${fmtCount(e.total)} ${e.unit}` : `${fmtCount(e.done)} ${e.unit}`;
    const rate = e.seconds > 0 ? e.done / e.seconds : 0;
    // A rate over less than a second (or before the first item) says nothing yet.
    const speed = e.seconds >= 1 && e.done ? `, ${rate >= 10 ? fmtCount(rate) : rate.toFixed(1)}/s${e.total ? `, ETA ${fmtDuration(Math.max(0, e.total - e.done) / rate)}` : ''}` : '';
    return `[${e.label}] ${count}${speed}${tail}`;
  }

  private redraw(force: boolean): void {
    const t = this.now();
    if (!force && t - this.drawn < (this.opts.redrawMs ?? 250)) return;
    this.drawn = t;
    this.draw(this.text(this.job!, false));
  }

  private endJob(): void {
    const e = this.job;
    if (!e) return;
    this.job = undefined;
    this.draw(this.text(e, true));
    this.write('\n');
    this.width = 0;
    this.drawn = -Infinity;
  }

  /** Rewrites the current line (a carriage return, the text, blanks over what was longer). */
  private draw(text: string): void {
    this.write(`\r${text}${' '.repeat(Math.max(0, this.width - text.length))}`);
    this.width = text.length;
  }
}
