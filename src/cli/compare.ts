// `assay compare BASELINE CANDIDATE`: did the change make things better, worse, or is it noise?

import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readCaseRecords } from '../analysis/cases.js';
import { type CompareOptions, type Comparison, compareRuns, compareViews } from '../analysis/compare.js';
import { scorecardOfRun } from '../analysis/scorecard.js';
import { InputError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { DEFAULT_BASELINES_DIR, resolveRun } from '../runlog/baselines.js';
import { guard, intFlag, parseFlags } from './common.js';

export const COMPARE_FLAGS = {
  seed: { type: 'string' },
  'min-effect': { type: 'string' },
  correction: { type: 'string' },
  'mid-p': { type: 'boolean' },
  'pass-at': { type: 'string' },
  'fail-on': { type: 'string' },
  'baselines-dir': { type: 'string' },
} as const;

/** A side given to `compare --policy`: a file or folder as given, else a run id or baseline name. */
function policySidePath(ref: string, dirs: { runsDir: string; baselinesDir: string }): string {
  return existsSync(ref) ? ref : resolveRun(ref, dirs);
}

/** `assay compare BASELINE CANDIDATE --policy FILE`: apastra's regression policy (compare.py). */
async function policyCompare(
  positionals: string[],
  values: { policy?: string; output?: string; json?: boolean },
  dirs: { runsDir: string; baselinesDir: string },
  stats: ReturnType<typeof compareOptionsFrom>,
): Promise<number> {
  const apastra = await import('../formats/apastra/compare.js');
  const policy = apastra.readPolicy(values.policy as string);
  const [baseline, candidate] = await Promise.all(
    positionals.map((p) => apastra.readSide(policySidePath(p, dirs))),
  );
  const outcome = apastra.policyOutcome(baseline, candidate, policy);
  // Beyond apastra: two assay runs are also paired case by case, so a delta within the noise is
  // said to be noise.
  let comparison: Comparison | undefined;
  if (baseline.runDir && candidate.runDir)
    comparison = await compareDirs(baseline.runDir, candidate.runDir, stats.options, stats.ks);
  const extra = comparison ? { paired_statistics: comparison } : undefined;
  if (values.output) apastra.writeReport(values.output, outcome.report, extra);
  if (values.json) process.stdout.write(`${apastra.reportText(outcome.report, extra)}\n`);
  else {
    process.stdout.write(apastra.renderRegression(outcome));
    if (comparison)
      process.stdout.write(
        `\n${renderComparison(comparison, { baseline: positionals[0], candidate: positionals[1] })}`,
      );
    if (values.output) process.stdout.write(`Wrote ${printable(resolve(values.output))}\n`);
  }
  // apastra's CI gate: pass passes; warning and fail both fail.
  return outcome.status === 'pass' ? 0 : 1;
}

const USAGE = `Usage: assay compare BASELINE CANDIDATE [options]

Pairs the results of two runs case by case (case identity × prompt label × provider, trials
reduced per case) and says, for each prompt × provider and metric (pass rate, score), whether the
candidate regressed, improved, is unchanged, or whether the difference is within the noise
(inconclusive). BASELINE and CANDIDATE are run directories, run ids under --runs-dir, or baseline
names (assay baseline save). Unlabeled prompts whose text changed pair by position; a case judged
on one side only (skipped on the other) is unpaired and listed, never counted as a failure.

Tests: exact McNemar on the cases whose outcome flipped (one trial a case), else a sign-flip
permutation test on the per-case differences (a within-case permutation of the trials when the
sides ran different numbers); 95% studentized paired-bootstrap intervals; Holm (or
Benjamini–Hochberg) correction over every comparison. Each metric also shows the smallest change
its test could detect at 80% power after the correction. A change the errored trials could decide
(had they passed, or failed) is "cannot judge", not a regression. Draws are seeded: the same runs
give the same answer.

Options:
      --seed N               seed of the bootstrap and permutation draws (default 1)
      --min-effect D         a change smaller than D is never regressed or improved: it counts only
                             when its whole 95% interval is beyond ±D (pass rate as a fraction,
                             e.g. 0.02 for 2 points; score in its own units)
      --correction holm|bh   multiple-comparison correction (default holm)
      --mid-p                mid-p McNemar (less conservative)
      --pass-at K[,K…]       pass@k and pass^k for these k (repeated runs; default: the trials)
      --fail-on regressed|inconclusive   exit 1 on a regression (default), or also when inconclusive
      --policy FILE          judge by an apastra regression policy (promptops/policies/regression.yaml)
                             as apastra's compare.py does; BASELINE and CANDIDATE may then also be
                             apastra scorecard.json files, baselines or run folders. -o writes
                             apastra's regression report; two assay runs add paired statistics.
                             Exit 1 when the report's status is fail or warning.
      --json                 print the comparison as JSON
  -o, --output FILE          also write the comparison to FILE: a page to open in a browser
                             when FILE ends in .html, else JSON
      --runs-dir DIR         where run ids are found (default .assay/runs)
      --baselines-dir DIR    where baseline names are found (default .assay/baselines)

Exit codes: 0 nothing regressed; 1 something regressed (or inconclusive, with --fail-on
inconclusive); 2 bad input (unreadable runs, no case in common); 3 cannot judge (errors decide
the verdict).
`;

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
    const d = Number(values['min-effect']);
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
  const failOn = values['fail-on'] ?? 'regressed';
  if (failOn !== 'regressed' && failOn !== 'inconclusive')
    throw new InputError(`--fail-on ${failOn}: expected regressed or inconclusive`);
  return { options, ks, failOn };
}

/** Compares two run directories; refuses two runs with no case in common (exit 2). */
export async function compareDirs(
  baselineDir: string,
  candidateDir: string,
  options: Partial<CompareOptions>,
  ks: number[],
): Promise<Comparison> {
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
  return comparison;
}

/**
 * The exit code of a comparison: 1 when it regressed (or is inconclusive, when asked); 3 when
 * errors decide the verdict (cannot judge: a run's own code for errors, not the model's regression).
 */
export function compareExitCode(c: Comparison, failOn: 'regressed' | 'inconclusive'): number {
  if (c.verdict === 'regressed') return 1;
  if (c.verdict === 'cannot-judge') return 3;
  if (failOn === 'inconclusive' && c.verdict === 'inconclusive') return 1;
  return 0;
}

/** `assay compare`. */
export async function compareCommand(args: string[]): Promise<number> {
  return guard(async () => {
    const { values, positionals } = parseFlags(args, {
      ...COMPARE_FLAGS,
      json: { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      'runs-dir': { type: 'string' },
      policy: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length !== 2)
      throw new InputError(`assay compare: expected BASELINE CANDIDATE, got ${positionals.length} arguments`);
    const { options, ks, failOn } = compareOptionsFrom(values);
    const dirs = {
      runsDir: values['runs-dir'] ?? '.assay/runs',
      baselinesDir: values['baselines-dir'] ?? DEFAULT_BASELINES_DIR,
    };
    if (values.policy !== undefined) return policyCompare(positionals, values, dirs, { options, ks, failOn });
    const [baselineDir, candidateDir] = positionals.map((ref) => resolveRun(ref, dirs));
    const comparison = await compareDirs(baselineDir, candidateDir, options, ks);
    const json = `${JSON.stringify({ baseline: baselineDir, candidate: candidateDir, ...comparison }, null, 2)}\n`;
    if (values.output)
      writeFileSync(
        resolve(values.output),
        /\.html?$/i.test(values.output)
          ? renderComparisonHtml(comparison, { baseline: positionals[0], candidate: positionals[1] })
          : json,
      );
    process.stdout.write(
      values.json
        ? json
        : renderComparison(comparison, { baseline: positionals[0], candidate: positionals[1] }),
    );
    return compareExitCode(comparison, failOn);
  });
}
