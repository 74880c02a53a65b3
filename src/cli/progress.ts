// The progress line `assay eval` draws on stderr while a run goes on, and the "loading suite…"
// line before it (on a large suite, reading takes seconds: the screen is never blank).
import type { Progress } from '../evaluate.js';
import { fitLine, renderProgress } from '../report/console.js';

/** The columns a redrawn line may take: one less than the terminal's, so it never wraps. */
function columns(): number | undefined {
  const c = process.stderr.columns;
  return c && c > 1 ? c - 1 : undefined;
}

/**
 * Shows `loading <what>…` on stderr at once when stderr is a terminal (as the progress line is);
 * the returned function takes it away. Nothing is written elsewhere (a pipe, a log file).
 */
export function showLoading(what: string): () => void {
  if (process.stderr.isTTY !== true) return () => {};
  process.stderr.write(`\r\u001b[2K${fitLine(`loading ${what}…`, columns())}`);
  let shown = true;
  return () => {
    if (shown) process.stderr.write('\r\u001b[2K');
    shown = false;
  };
}

/** A progress line on stderr: redrawn in place on a terminal, a line every few seconds otherwise. */
export class ProgressLine {
  private readonly tty = process.stderr.isTTY === true;
  private last = 0;
  private readonly started = performance.now();
  private shown = false;

  update(p: Progress): void {
    const now = performance.now();
    const interval = this.tty ? 100 : 5000;
    if (now - this.last < interval && p.done !== p.planned) return;
    this.last = now;
    const elapsed = now - this.started;
    const rate = p.done / Math.max(0.001, elapsed / 1000);
    const line = renderProgress(p, rate, elapsed);
    if (this.tty) {
      process.stderr.write(`\r\u001b[2K${fitLine(line, columns())}`);
      this.shown = true;
    } else if (p.done !== p.planned || now - this.started > interval) {
      process.stderr.write(`${line}\n`);
    }
  }

  clear(): void {
    if (this.tty && this.shown) process.stderr.write('\r\u001b[2K');
    this.shown = false;
  }
}
