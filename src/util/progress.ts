/**
 * Progress for long jobs: count, rate and ETA on a TTY (one line, rewritten in place, at most 5×/s);
 * silent when stderr is not a TTY or CI is set, so logs and CI output stay clean. This class alone decides:
 * a caller may silence a bar, never force one onto a file or a pipe.
 */
interface ProgressOptions {
  label: string;
  total?: number;
  unit?: string;
  /** false silences the bar; it draws only where stderr is a TTY and CI is unset, whatever this says. */
  enabled?: boolean;
}

export class Progress {
  private done = 0;
  private readonly start = performance.now();
  private lastDraw = 0;
  private readonly enabled: boolean;

  constructor(private readonly opts: ProgressOptions) {
    this.enabled = opts.enabled !== false && onTerminal();
  }

  tick(n = 1): void {
    this.done += n;
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.lastDraw < 200) return;
    this.lastDraw = now;
    this.draw(now);
  }

  set(done: number): void {
    this.done = done - 1;
    this.tick(1);
  }

  finish(): void {
    if (!this.enabled) return;
    this.draw(performance.now());
    process.stderr.write('\n');
  }

  private draw(now: number): void {
    const secs = Math.max((now - this.start) / 1000, 1e-9);
    const rate = this.done / secs;
    const unit = this.opts.unit ?? 'items';
    let line = `${this.opts.label}: ${fmtCount(this.done)}`;
    if (this.opts.total) {
      const pct = ((100 * this.done) / this.opts.total).toFixed(1);
      const eta = rate > 0 ? (this.opts.total - this.done) / rate : Infinity;
      line += `/${fmtCount(this.opts.total)} (${pct}%)  ${fmtCount(rate)} ${unit}/s  ETA ${fmtDuration(eta)}`;
    } else {
      line += `  ${fmtCount(rate)} ${unit}/s  ${fmtDuration(secs)}`;
    }
    process.stderr.write(`\r\x1b[K${line}`);
  }
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
