// `assay compare BASELINE CANDIDATE`: did the change make things better, worse, or is it noise?

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readCaseRecords } from '../analysis/cases.js';
import {
  type CompareOptions,
  type Comparison,
  compareRuns,
  compareViews,
  markIncomplete,
} from '../analysis/compare.js';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { suiteCases } from '../core/cases.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { Suite } from '../core/types.js';
import { formatNamed, type PolicyCompareHook, suiteFormats } from '../formats/detect.js';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { completenessText, describeCompleteness, runCompleteness } from '../runlog/completeness.js';
import { readManifest, readResults } from '../runlog/reader.js';
import { lastTwoRuns } from '../runlog/runs.js';
import { writeFileWhole } from '../runlog/write-whole.js';
import { parseCommand, usage } from './args.js';
import { guard, intFlag } from './common.js';
import { refuseOverwritingInputs } from './outputs.js';

/**
 * How whole the two runs are, one line each, when either is not (undefined when both are). Without
 * `allowPartial` such a pair is refused (exit 2): a run that did not reach every planned job can
 * never make a gate pass.
 */
export async function partialSides(
  baselineDir: string,
  candidateDir: string,
  allowPartial: boolean,
): Promise<string[] | undefined> {
  const [b, c] = await Promise.all([runCompleteness(baselineDir), runCompleteness(candidateDir)]);
  if (b.complete && c.complete) return undefined;
  const lines = [describeCompleteness('baseline', b), describeCompleteness('candidate', c)];
  if (!allowPartial)
    throw new InputError(
      `cannot compare runs that are not both complete: ${lines.join('; ')}. Finish the run (assay eval --resume RUN), or pass --allow-partial to see the comparison (never unchanged, improved or PASS; exit 1)`,
    );
  return lines;
}

/** A side given to `compare --policy`: a file or folder as given, else a run id or baseline name. */
function policySidePath(ref: string, dirs: { runsDir: string; baselinesDir: string }): string {
  return existsSync(ref) ? ref : resolveRun(ref, dirs);
}

/**
 * `assay eval --baseline B`, before any model is called: B must be whole (or --allow-partial) and
 * share at least one case with the suite, else the gate could only fail after the run was paid for.
 */
export async function checkGateBaseline(
  baselineDir: string,
  suite: Suite,
  opts: { allowPartial: boolean; shard: boolean },
): Promise<void> {
  if (opts.shard)
    throw new InputError(
      '--baseline with --shard: one shard is not a whole run and cannot pass a gate; merge the shards (assay merge), then assay compare',
    );
  const whole = await runCompleteness(baselineDir);
  if (!whole.complete && !opts.allowPartial)
    throw new InputError(
      `--baseline ${baselineDir}: ${describeCompleteness('the baseline', whole)}; a gate against it cannot pass (save a complete run as the baseline, or pass --allow-partial)`,
    );
  const refs = new Set<string>();
  for await (const r of readResults(baselineDir)) refs.add(r.case.ref ?? r.caseId);
  for (const c of suiteCases(suite)) if (refs.has(c.ref ?? c.id)) return;
  const manifest = readManifest(baselineDir);
  throw new InputError(
    `--baseline ${baselineDir}: no case in common with this suite (the baseline is a run of ${manifest.suite.name}, ${manifest.suite.path}): is it a run of another suite?`,
  );
}

/**
 * The format whose regression policy `--policy` applies: the format of a side that is an assay run
 * (its `manifest.suite.format`), else the first format that has one (apastra's).
 */
async function policyFormat(paths: string[]): Promise<PolicyCompareHook> {
  for (const p of paths) {
    if (!existsSync(join(p, 'manifest.json')) || !existsSync(join(p, 'results.jsonl'))) continue;
    const hook = (await formatNamed(readManifest(p).suite.format))?.policyCompare;
    if (hook) return hook;
  }
  const first = (await suiteFormats()).find((f) => f.policyCompare)?.policyCompare;
  if (!first) throw new InputError('--policy: no suite format has a regression policy');
  return first;
}

/** `assay compare BASELINE CANDIDATE --policy FILE`: a format's regression policy (apastra's compare.py). */
async function policyCompare(
  positionals: string[],
  values: { policy?: string; output?: string; json?: boolean; 'allow-partial'?: boolean; verbose?: boolean },
  dirs: { runsDir: string; baselinesDir: string },
  stats: ReturnType<typeof compareOptionsFrom>,
): Promise<number> {
  const paths = positionals.map((p) => policySidePath(p, dirs));
  const hook = await policyFormat(paths);
  const read = await hook.read(values.policy as string, paths[0], paths[1]);
  const { baseline, candidate } = read;
  if (values.output)
    refuseOverwritingInputs(
      [values.output],
      [baseline.runDir, candidate.runDir].filter((d): d is string => d !== undefined),
      [values.policy as string, baseline.ref, candidate.ref],
    );
  // An assay run that is not whole never passes a policy: refused, or (--allow-partial) a warning.
  const partial = await policyPartial(baseline, candidate, values['allow-partial'] === true);
  const verdict = read.judge(partial);
  // Beyond the format's tool: two assay runs are also paired case by case, so a delta within the
  // noise is said to be noise.
  let comparison: Comparison | undefined;
  if (baseline.runDir && candidate.runDir)
    comparison = await compareDirs(baseline.runDir, candidate.runDir, stats.options, stats.ks, true);
  const extra =
    comparison || partial
      ? {
          ...(partial ? { incomplete: partial } : {}),
          ...(comparison ? { paired_statistics: comparison } : {}),
        }
      : undefined;
  if (values.output) writeFileWhole(resolve(values.output), verdict.report(extra));
  if (values.json) process.stdout.write(`${verdict.report(extra)}\n`);
  else {
    process.stdout.write(verdict.text);
    if (comparison)
      process.stdout.write(
        `\n${renderComparison(comparison, { baseline: positionals[0], candidate: positionals[1] }, { verbose: values.verbose === true })}`,
      );
    if (values.output) process.stdout.write(`Wrote ${printable(resolve(values.output))}\n`);
  }
  return verdict.pass ? 0 : 1;
}

/**
 * The completeness lines of the sides of a policy comparison that are assay runs (or baseline files
 * assay saved from a run that did not complete), if one is not whole.
 */
async function policyPartial(
  baseline: { runDir?: string; ref: string; incomplete?: string },
  candidate: { runDir?: string; ref: string; incomplete?: string },
  allowPartial: boolean,
): Promise<string[] | undefined> {
  const read = await Promise.all(
    (
      [
        ['baseline', baseline],
        ['candidate', candidate],
      ] as const
    ).map(async ([side, s]) => {
      if (s.runDir) {
        const c = await runCompleteness(s.runDir);
        return c.complete ? undefined : describeCompleteness(side, c);
      }
      return s.incomplete ? `${side} ${s.ref} is of a run that is ${s.incomplete}` : undefined;
    }),
  );
  const lines = read.filter((l): l is string => l !== undefined);
  if (lines.length === 0) return undefined;
  if (!allowPartial)
    throw new InputError(
      `cannot judge runs that are not complete by a policy: ${lines.join('; ')}. Finish the run (assay eval --resume RUN), or pass --allow-partial to see the report (never PASS; exit 1)`,
    );
  return lines;
}

/** The comparison options and exit rule from parsed COMPARE_FLAGS. */
export function compareOptionsFrom(values: {
  seed?: string;
  'min-effect'?: string;
  correction?: string;
  'mid-p'?: boolean;
  'pass-at'?: string;
  'fail-on'?: string;
}): { options: Partial<CompareOptions>; ks: number[]; failOn: 'regressed' | 'inconclusive' } {
  const options: Partial<CompareOptions> = {};
  const seed = intFlag('seed', values.seed, 0, 2 ** 31);
  if (seed !== undefined) options.seed = seed;
  if (values['min-effect'] !== undefined) {
    const d = values['min-effect'].trim() === '' ? Number.NaN : Number(values['min-effect']);
    if (!Number.isFinite(d) || d < 0)
      throw new InputError(`--min-effect ${values['min-effect']}: expected a number ≥ 0`);
    options.minEffect = d;
  }
  if (values.correction !== undefined) {
    if (values.correction !== 'holm' && values.correction !== 'bh')
      throw new InputError(`--correction ${values.correction}: expected holm or bh`);
    options.correction = values.correction;
  }
  if (values['mid-p']) options.midP = true;
  const ks = (values['pass-at'] ?? '')
    .split(',')
    .filter((k) => k.trim() !== '')
    .map((k) => intFlag('pass-at', k.trim(), 1) as number);
  if (values['pass-at'] !== undefined && ks.length === 0)
    throw new InputError(`--pass-at ${values['pass-at']}: expected whole numbers ≥ 1, separated by commas`);
  const failOn = values['fail-on'] ?? 'regressed';
  if (failOn !== 'regressed' && failOn !== 'inconclusive')
    throw new InputError(`--fail-on ${failOn}: expected regressed or inconclusive`);
  return { options, ks, failOn };
}

/**
 * Compares two run directories; refuses two runs with no case in common (exit 2), and runs that are
 * not both complete unless `allowPartial` (then the comparison is marked incomplete).
 */
export async function compareDirs(
  baselineDir: string,
  candidateDir: string,
  options: Partial<CompareOptions>,
  ks: number[],
  allowPartial = false,
): Promise<Comparison> {
  const partial = await partialSides(baselineDir, candidateDir, allowPartial);
  const [baseline, candidate] = await Promise.all([
    readCaseRecords(baselineDir),
    readCaseRecords(candidateDir),
  ]);
  const comparison = compareRuns(baseline, candidate, options, ks);
  const views = compareViews(await scorecardOfRun(baselineDir), await scorecardOfRun(candidateDir));
  if (views) comparison.views = views;
  if (comparison.pairs === 0 && comparison.unjudged.length === 0)
    throw new InputError(
      `${candidateDir}: no case in common with the baseline ${baselineDir} (${baseline.size} and ${candidate.size} cases): are these runs of the same suite?`,
    );
  if (partial) markIncomplete(comparison, partial);
  return comparison;
}

/**
 * The exit code of a comparison: 1 when it regressed (or is inconclusive, when asked); 3 when
 * errors decide the verdict (cannot judge: a run's own code for errors, not the model's regression).
 */
export function compareExitCode(c: Comparison, failOn: 'regressed' | 'inconclusive'): number {
  if (c.verdict === 'regressed') return 1;
  if (c.verdict === 'cannot-judge') return 3;
  // Runs that are not whole (--allow-partial) never pass a gate.
  if (c.incomplete) return 1;
  if (failOn === 'inconclusive' && c.verdict === 'inconclusive') return 1;
  return 0;
}

/** `assay compare`. */
export async function compareCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = await parseCommand('compare', args);
    if (values.help) {
      process.stdout.write(usage('compare', []));
      return 0;
    }
    const dirs = {
      runsDir: values['runs-dir'] ?? '.assay/runs',
      baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
    };
    // With no runs named: the newest run against the run of the same suite before it.
    if (positionals.length === 0 && values.policy === undefined) {
      const { baseline, candidate, skipped } = lastTwoRuns(dirs.runsDir, {
        allowPartial: values['allow-partial'] === true,
      });
      positionals.push(baseline.runId, candidate.runId);
      // A run that did not complete (a Ctrl-C just now) is passed over, and said to be.
      for (const run of skipped) {
        const whole = await runCompleteness(run.dir);
        process.stderr.write(
          `Skipped the newer run ${printable(run.runId)}: it is ${completenessText(whole)} (--allow-partial compares it)\n`,
        );
      }
      if (!values.json)
        process.stderr.write(
          `Comparing the last two ${skipped.length > 0 ? 'complete runs' : 'runs'} of ${printable(candidate.manifest!.suite.path)}: ${printable(baseline.runId)} (baseline) and ${printable(candidate.runId)} (candidate)\n`,
        );
    }
    if (positionals.length !== 2)
      throw new InputError(`assay compare: expected BASELINE CANDIDATE, got ${positionals.length} arguments`);
    const { options, ks, failOn } = compareOptionsFrom(values);
    if (values.policy !== undefined) return policyCompare(positionals, values, dirs, { options, ks, failOn });
    const [baselineDir, candidateDir] = positionals.map((ref) => resolveRun(ref, dirs));
    if (values.output) refuseOverwritingInputs([values.output], [baselineDir, candidateDir]);
    const comparison = await compareDirs(baselineDir, candidateDir, options, ks, values['allow-partial']);
    const json = `${JSON.stringify({ baseline: baselineDir, candidate: candidateDir, ...comparison }, null, 2)}\n`;
    if (values.output)
      writeFileWhole(
        resolve(values.output),
        /\.html?$/i.test(values.output)
          ? renderComparisonHtml(comparison, {
              baseline: positionals[0],
              candidate: positionals[1],
              baselineDir,
              candidateDir,
              page: resolve(values.output),
            })
          : json,
      );
    process.stdout.write(
      values.json
        ? json
        : renderComparison(
            comparison,
            { baseline: positionals[0], candidate: positionals[1] },
            { verbose: values.verbose === true },
          ),
    );
    return compareExitCode(comparison, failOn);
  });
}
