// The progress line `assay eval` draws on stderr while a run goes on.
import type { Progress } from '../evaluate.js';
import { renderProgress } from '../report/console.js';

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
    const rate = p.done / Math.max(0.001, (now - this.started) / 1000);
    const line = renderProgress(p, rate);
    if (this.tty) {
      process.stderr.write(`\r\u001b[2K${line}`);
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
