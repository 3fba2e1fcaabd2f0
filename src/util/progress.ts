/**
 * Progress for long jobs, one mechanism for every front end: a job's Progress emits structured events (label,
 * count, total, unit, elapsed time) at most 5×/s and when it ends; the terminal bar is one listener of them (count,
 * rate and ETA on one line rewritten in place, only where stderr is a TTY and CI is unset, so logs and CI output
 * stay clean: a caller may silence a bar, never force one onto a file or a pipe), and a notebook's progress lines
 * another (experiments/notebook-log.ts subscribes with onProgress). Nobody parses log text for progress.
 */
interface ProgressOptions {
  label: string;
  total?: number;
  unit?: string;
  /** false silences the terminal bar (listeners still hear the events); it draws only on a TTY outside CI. */
  enabled?: boolean;
}

/** What a listener hears: a job's state now. */
export interface ProgressEvent {
  /** Distinguishes two jobs of one label (two tuned models). */
  id: number;
  label: string;
  done: number;
  total?: number;
  unit: string;
  /** Seconds since the job started. */
  seconds: number;
  /** The job's last event. */
  end: boolean;
}

type Listener = (e: ProgressEvent) => void;
const listeners = new Set<Listener>();
let serial = 0;

/** Hear every job's progress until the returned function is called. */
export function onProgress(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export class Progress {
  private done = 0;
  private total: number | undefined;
  private readonly id = ++serial;
  private readonly start = performance.now();
  private lastEmit = -Infinity;
  private readonly bar: boolean;

  constructor(private readonly opts: ProgressOptions) {
    this.bar = opts.enabled !== false && onTerminal();
    this.total = opts.total;
  }

  tick(n = 1): void {
    this.done += n;
    const now = performance.now();
    if (now - this.lastEmit < 200) return;
    this.lastEmit = now;
    this.emit(now, false);
  }

  set(done: number): void {
    this.done = done - 1;
    this.tick(1);
  }

  /** More work became known (a stage whose parts announce their size as they start). */
  addTotal(n: number): void {
    this.total = (this.total ?? 0) + n;
  }

  finish(): void {
    this.emit(performance.now(), true);
  }

  private emit(now: number, end: boolean): void {
    if (!this.bar && listeners.size === 0) return;
    const e: ProgressEvent = { id: this.id, label: this.opts.label, done: this.done, total: this.total, unit: this.opts.unit ?? 'items', seconds: (now - this.start) / 1000, end };
    if (this.bar) process.stderr.write(`\r\x1b[K${barLine(e)}${end ? '\n' : ''}`);
    for (const l of listeners) l(e);
  }
}

/** The terminal's line: "label: 1.2k/4.0k (30.0%)  52 items/s  ETA 1m02s". */
function barLine(e: ProgressEvent): string {
  const secs = Math.max(e.seconds, 1e-9);
  const rate = e.done / secs;
  let line = `${e.label}: ${fmtCount(e.done)}`;
  if (e.total) {
    const pct = ((100 * e.done) / e.total).toFixed(1);
    const eta = rate > 0 ? (e.total - e.done) / rate : Infinity;
    line += `/${fmtCount(e.total)} (${pct}%)  ${fmtCount(rate)} ${e.unit}/s  ETA ${fmtDuration(eta)}`;
  } else {
    line += `  ${fmtCount(rate)} ${e.unit}/s  ${fmtDuration(secs)}`;
  }
  return line;
}

/** Whether progress may be drawn: stderr is a terminal and this is not CI. */
function onTerminal(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.CI;
}

export function fmtCount(n: number): string {
  if (n >= 1e6) return (n / 1e6).toFixed(2) + 'M';
  if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  return Math.round(n).toString();
}

export function fmtDuration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
