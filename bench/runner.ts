/** Runs one workload for assay and promptfoo alternately, checking every run's results. */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSnapshot, othersShare } from './load.js';
import { type Measurement, measure } from './measure.js';
import type { MockHandle, MockStats } from './mock.js';
import type { CacheMode, Tool } from './tools.js';
import { type Tally, tallyAssay, tallyPromptfoo } from './verify.js';
import type { Workload } from './workloads.js';

/** One timed run of one tool. */
export interface RunRecord {
  m: Measurement;
  /** Results counted from `-o out.json` (eval rows only). */
  tally?: Tally;
  /** What the mock saw during the run (mock rows only). */
  mock?: MockStats;
  /** For a run that exited non-zero: the last error line of its log. */
  failure?: string;
  /** Share of the machine's CPU that other processes took during the run (0…1). */
  othersShare?: number;
}

/** Every timed run of one tool on one workload. */
export interface ToolResult {
  tool: Tool['name'];
  runs: RunRecord[];
  /** Why the tool was not run (e.g. `no --cache-path in this build`). */
  skipped?: string;
  /** Facts for the notes column (the untimed cache fill, skipped repeats). */
  notes: string[];
  /** The command of the timed runs, as shown in RESULTS.md. */
  command?: string;
}

/** What running a workload needs. */
export interface RunContext {
  workDir: string;
  mock: MockHandle;
  timeoutMs: number;
  /** After a run longer than this, the tool's remaining repeats are skipped. */
  longRunS: number;
  say(line: string): void;
}

/** Runs the workload for each tool (alternating run by run) and returns the results in the tools' order. */
export async function runWorkload(
  w: Workload,
  config: string | undefined,
  tools: Tool[],
  ctx: RunContext,
): Promise<ToolResult[]> {
  const results: ToolResult[] = tools.map((t) => ({ tool: t.name, runs: [], notes: [] }));
  const timedMode: CacheMode = w.kind === 'cached' ? 'reuse' : 'off';
  const argsOf = (tool: Tool, mode: CacheMode): string[] | undefined => {
    if (w.kind === 'version') return tool.versionArgs();
    if (!config) throw new Error(`workload ${w.name} has no suite`);
    return tool.evalArgs(w, config, outFile(ctx.workDir, tool, w), mode);
  };
  tools.forEach((tool, i) => {
    const why = tool.whyNot?.(w);
    const args = why ? undefined : argsOf(tool, timedMode);
    if (args) results[i].command = tool.display(args);
    else results[i].skipped = why ?? 'this build has no `--cache-path`';
  });

  if (w.kind === 'cached') {
    for (const [i, tool] of tools.entries()) {
      if (results[i].skipped) continue;
      clearCache(ctx.workDir, tool);
      const fill = await once(tool, w, argsOf(tool, 'fill')!, ctx, 'fill');
      results[i].notes.push(`fill run ${fill.m.wallS.toFixed(1)} s (${fillNote(fill, w)})`);
    }
  } else if (w.warmup) {
    for (const [i, tool] of tools.entries()) {
      if (!results[i].skipped) await once(tool, w, argsOf(tool, timedMode)!, ctx, 'warm-up');
    }
  }

  const maxRuns = Math.max(w.runs.assay, w.runs.peer);
  for (let r = 0; r < maxRuns; r++) {
    for (const [i, tool] of tools.entries()) {
      const res = results[i];
      // The floor runs as often as assay: it is assay's yardstick.
      const wanted = tool.name === 'promptfoo' ? w.runs.peer : w.runs.assay;
      if (res.skipped || r >= wanted) continue;
      const last = res.runs.at(-1);
      if (last && (last.m.wallS > ctx.longRunS || last.m.timedOut)) {
        if (r === res.runs.length)
          res.notes.push(`${res.runs.length} run(s): the first took > ${ctx.longRunS} s`);
        continue;
      }
      res.runs.push(await once(tool, w, argsOf(tool, timedMode)!, ctx, `run ${r + 1}/${wanted}`));
    }
  }
  return results;
}

async function once(
  tool: Tool,
  w: Workload,
  args: string[],
  ctx: RunContext,
  label: string,
): Promise<RunRecord> {
  const out = outFile(ctx.workDir, tool, w);
  const written = tool.outputOf?.(out) ?? out;
  rmSync(out, { force: true });
  rmSync(`${out}.d`, { recursive: true, force: true });
  cleanRunState(ctx.workDir, tool);
  if (w.provider === 'mock' && w.kind !== 'version') await ctx.mock.stats(true);
  const logDir = join(ctx.workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  mkdirSync(join(ctx.workDir, 'out'), { recursive: true });
  // One log per run, so a failed run's log survives the runs after it.
  const logFile = join(logDir, `${w.name}-${tool.name}-${label.replace(/\W+/g, '-')}.log`);
  const before = cpuSnapshot(ctx.mock.pid);
  const m = await measure({
    command: tool.command,
    args,
    cwd: tool.cwd ?? ctx.workDir,
    env: tool.env,
    timeoutMs: ctx.timeoutMs,
    logFile,
  });
  const record: RunRecord = { m, othersShare: othersShare(before, cpuSnapshot(ctx.mock.pid), m.cpuS) };
  if (m.exitCode !== 0 && !m.timedOut) record.failure = lastErrorLine(logFile);
  if (w.kind !== 'version') {
    record.tally = tool.name === 'promptfoo' ? await tallyPromptfoo(written) : await tallyAssay(written);
    if (w.provider === 'mock') record.mock = await ctx.mock.stats(true);
    // Keep a wrong run's output for inspection; the next run overwrites `out`.
    const wrong = record.tally.error > 0 || record.tally.total !== w.tests;
    if (wrong && existsSync(written))
      copyFileSync(written, out.replace(/\.json$/, `-${label.replace(/\W+/g, '-')}.failed.json`));
  }
  cleanRunState(ctx.workDir, tool);
  // Outputs of 100k tests run to hundreds of MB; a checked one is not needed any more.
  rmSync(out, { force: true });
  rmSync(`${out}.d`, { recursive: true, force: true });
  const rss = m.peakRssMiB === undefined ? '?' : m.peakRssMiB.toFixed(0);
  const end = m.timedOut ? 'TIMEOUT' : m.signal ? m.signal : `exit ${m.exitCode}`;
  const counts = record.tally
    ? ` ${record.tally.pass}/${record.tally.total} pass, ${record.tally.error} err`
    : '';
  const others =
    record.othersShare === undefined ? '' : `, others ${(record.othersShare * 100).toFixed(0)}% CPU`;
  const cpu = m.cpuS === undefined ? '' : `, cpu ${m.cpuS.toFixed(2)} s`;
  ctx.say(
    `  ${w.name} ${tool.name} ${label}: ${m.wallS.toFixed(3)} s, ${rss} MiB${cpu}, ${end}${counts}${others}`,
  );
  return record;
}

/** The last line of a log that names an error (stack frames skipped), shortened for the notes column. */
function lastErrorLine(logFile: string): string | undefined {
  if (!existsSync(logFile)) return undefined;
  const text = readFileSync(logFile, 'utf8');
  const lines = text.slice(-65536).split('\n');
  lines.reverse();
  // Prefer a thrown error's own line (`NodeError: write after end`) over lines that merely mention one.
  const hit =
    lines.find((l) => /^\s*\w*(Error|Exception)\b[^:]*: \S/.test(l)) ??
    lines.find((l) => /\b\w*Error\b|\berror:/i.test(l) && !/^\s+at /.test(l));
  return hit?.trim().slice(0, 120);
}

function fillNote(fill: RunRecord, w: Workload): string {
  const t = fill.tally;
  const pass = t ? `${t.pass}/${w.tests} pass` : '';
  return fill.mock ? `${pass}, ${fill.mock.requests} requests` : pass;
}

/** Where a tool writes `-o` for a workload. */
function outFile(workDir: string, tool: Tool, w: Workload): string {
  return join(workDir, 'out', `${w.name}-${tool.name}.json`);
}

/** Removes what runs leave behind that would pile up: assay's run directories, promptfoo's debug logs. */
function cleanRunState(workDir: string, tool: Tool): void {
  if (tool.name === 'assay') rmSync(join(workDir, 'runs'), { recursive: true, force: true });
  else if (tool.name === 'promptfoo')
    rmSync(join(workDir, 'pfhome', 'logs'), { recursive: true, force: true });
}

function clearCache(workDir: string, tool: Tool): void {
  if (tool.name === 'assay') {
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(join(workDir, `cache.sqlite${suffix}`), { force: true });
  } else {
    rmSync(join(workDir, 'pfhome', 'cache'), { recursive: true, force: true });
  }
}
