// `assay compare BASELINE CANDIDATE --policy regression.yaml` and `assay baseline save` for apastra:
// each side is an apastra scorecard file (or a `{scorecard: …}` baseline), an apastra run folder,
// or an assay run of an apastra suite (whose apastra scorecard is computed from its results).

import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { displayPath } from '../../core/positions.js';
import { aFormat } from '../../core/printable.js';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import { PyFloat, PyJsonError, type PyValue, pyJsonLoads } from '../../core/python/json-loads.js';
import { readManifest } from '../../runlog/reader.js';
import { writeFileWhole } from '../../runlog/write-whole.js';
import type { BaselineHook, PolicyCompareHook } from '../types.js';
import { documentDigest } from './digest.js';
import { readDoc } from './documents.js';
import { gatherRun } from './gather.js';
import { gatePaths } from './judge.js';
import { type ApastraNative, apastraNative } from './native.js';
import { normalizeScorecard } from './normalize.js';
import {
  comparePolicy,
  PolicyError,
  type RegressionOutcome,
  renderRegression,
  sideProblem,
} from './policy.js';
import { schemaProblems } from './schemas.js';

/** One side of a policy comparison, read. */
export interface PolicySide {
  /** The document compare.py reads (a scorecard, or a wrapper with `scorecard` and `manifest`). */
  doc: PyValue;
  /** The path the report names. */
  ref: string;
  /** Set when the side is an assay run directory (paired statistics are possible). */
  runDir?: string;
  /**
   * Set on a side that records a run that did not complete: a baseline file saved by assay with
   * `--force`, an apastra run folder whose run_manifest.json status says so. How, in words.
   */
  incomplete?: string;
}

function isAssayRun(dir: string): boolean {
  return existsSync(join(dir, 'manifest.json')) && existsSync(join(dir, 'results.jsonl'));
}

function readJson(path: string): PyValue {
  try {
    return pyJsonLoads(readFileSync(path, 'utf8').replace(/^\ufeff/, ''));
  } catch (err) {
    if (err instanceof PyJsonError)
      throw new InputError({
        file: displayPath(path),
        line: err.lineno,
        col: err.colno,
        message: `not JSON: ${err.msg}`,
        severity: 'error',
      });
    throw new InputError({
      file: displayPath(path),
      message: `cannot read: ${(err as Error).message}`,
      severity: 'error',
    });
  }
}

/** The apastra scorecard (and total cost) of an assay run of an apastra suite, for one model. */
export async function scorecardOfAssayRun(
  runDir: string,
): Promise<{ scorecard: Map<string, PyValue>; cost: number; native: ApastraNative }> {
  const manifest = readManifest(runDir);
  const native = apastraNative.maybe(manifest.suite.native);
  if (!native)
    throw new InputError(
      `${displayPath(runDir)}: a run of ${aFormat(manifest.suite.format)} suite has no apastra scorecard; give an apastra scorecard.json or run folder`,
    );
  const runs = await gatherRun(runDir, manifest);
  if (runs.length > 1)
    throw new InputError(
      `${displayPath(runDir)}: the run has ${runs.length} models; an apastra scorecard describes one (run each model on its own)`,
    );
  const run = runs[0] ?? { cases: [], cost: 0 };
  const scorecard = normalizeScorecard(
    run.cases.map((c) => ({
      case_id: c.caseId,
      evaluator_outputs: c.outputs.map((o) => Object.fromEntries(o)),
    })),
  );
  return { scorecard, cost: run.cost, native };
}

/** Reads one side: a scorecard or baseline JSON file, an apastra run folder, or an assay run directory. */
export async function readSide(path: string): Promise<PolicySide> {
  const abs = resolve(path);
  if (!existsSync(abs))
    throw new InputError({ file: path, message: 'no such file or folder', severity: 'error' });
  if (statSync(abs).isDirectory()) {
    if (isAssayRun(abs)) {
      const { scorecard, cost } = await scorecardOfAssayRun(abs);
      return {
        doc: new Map<string, PyValue>([
          ['scorecard', scorecard],
          ['manifest', new Map<string, PyValue>([['total_cost', new PyFloat(cost)]])],
        ]),
        // compare.py's report names its inputs as its command line gave them; so does assay's.
        ref: path,
        runDir: abs,
      };
    }
    const card = join(abs, 'scorecard.json');
    if (!existsSync(card))
      throw new InputError({
        file: path,
        message:
          'expected an apastra run folder (scorecard.json) or an assay run directory (manifest.json, results.jsonl)',
        severity: 'error',
      });
    const manifestPath = join(abs, 'run_manifest.json');
    const manifest = existsSync(manifestPath) ? readJson(manifestPath) : new Map<string, PyValue>();
    // A run folder assay wrote from a run that did not complete says so in its status.
    const status = manifest instanceof Map ? manifest.get('status') : undefined;
    const partial = typeof status === 'string' && ['interrupted', 'aborted', 'running'].includes(status);
    return {
      doc: new Map<string, PyValue>([
        ['scorecard', readJson(card)],
        ['manifest', manifest],
      ]),
      ref: join(path, 'scorecard.json'),
      ...(partial ? { incomplete: `${status} (the status in its run_manifest.json)` } : {}),
    };
  }
  const doc = readJson(abs);
  const mark = doc instanceof Map ? doc.get('assay_incomplete') : undefined;
  return { doc, ref: path, ...(typeof mark === 'string' ? { incomplete: mark } : {}) };
}

/** Reads and checks a regression policy file (apastra's schema). */
export function readPolicy(path: string): PyValue {
  const doc = readDoc(resolve(path));
  const problems = schemaProblems('regression-policy', doc.value);
  if (problems.length > 0)
    throw new InputError(
      problems.map((p) => ({
        ...doc.at(p.path),
        message: `not a valid apastra regression policy: ${p.message}`,
        severity: 'error' as const,
      })),
    );
  return doc.py;
}

/** compare.py on two sides; a document or policy it would crash on is bad input. */
export function policyOutcome(
  baseline: PolicySide,
  candidate: PolicySide,
  policy: PyValue,
): RegressionOutcome {
  for (const [side, role] of [
    [candidate, 'candidate'],
    [baseline, 'baseline'],
  ] as const) {
    const problem = sideProblem(side.doc, role);
    if (problem)
      throw new InputError({
        file: side.ref,
        message: `not an apastra scorecard (${role}): ${problem}`,
        severity: 'error',
      });
  }
  try {
    return comparePolicy(candidate.doc, baseline.doc, policy, {
      candidate: candidate.ref,
      baseline: baseline.ref,
    });
  } catch (err) {
    if (err instanceof PolicyError) throw new InputError(err.message);
    throw err;
  }
}

/** A regression report's text (compare.py's keys as it writes them, then any extra keys), checked against apastra's schema. */
export function reportText(report: Map<string, PyValue>, extra?: Record<string, unknown>): string {
  const problems = schemaProblems('regression-report', JSON.parse(pyJsonDumps(report)));
  if (problems.length > 0)
    throw new Error(`regression report invalid: ${problems.map((p) => p.message).join('; ')}`);
  let text = pyJsonDumps(report, { indent: 2, ensureAscii: false });
  if (extra && Object.keys(extra).length > 0) {
    // compare.py's keys first, as it writes them; assay's additions after them.
    text = `${text.slice(0, text.lastIndexOf('}')).trimEnd()},\n${Object.entries(extra)
      .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2).replace(/\n/g, '\n  ')}`)
      .join(',\n')}\n}`;
  }
  return text;
}

/** Writes a regression report (with any extra keys) after checking it against apastra's schema. */
export function writeReport(
  path: string,
  report: Map<string, PyValue>,
  extra?: Record<string, unknown>,
): void {
  writeFileWhole(resolve(path), reportText(report, extra));
}

export { renderRegression };

/**
 * A policy outcome of runs that are not both complete (`--allow-partial`): never PASS — a pass
 * becomes apastra's warning, which fails the gate — with the reasons.
 */
export function demotePartial(outcome: RegressionOutcome, reasons: string[]): void {
  if (outcome.status === 'pass') {
    outcome.status = 'warning';
    outcome.report.set('status', 'warning');
  }
  outcome.incomplete = reasons;
}

/**
 * Why a run of an apastra suite must not become its active baseline: an interrupted or aborted run
 * scored only some of its cases, and its metrics would become the floor every later run is held
 * to. Undefined for a finished run, and for a run of another format.
 */
export function apastraBaselineRefusal(runDir: string): string | undefined {
  const manifest = readManifest(runDir);
  const native = apastraNative.maybe(manifest.suite.native);
  if (!native) return undefined;
  if (manifest.status === 'complete' || manifest.status === 'running') return undefined;
  return `${runDir}: the run is ${manifest.status}, so it would not become apastra suite ${native.suiteId}'s active baseline (its metrics cover only the cases it reached); finish it with assay eval --resume ${manifest.runId}, or pass --force to save it anyway`;
}

/**
 * Writes the suite's active apastra baseline (`derived-index/baselines/<suite-id>.json`, the
 * baseline skill's shape, with the scorecard embedded) from an assay run of an apastra suite; an
 * existing one is copied to `<suite-id>-<timestamp>.json`, never deleted. Undefined for a run of
 * another format.
 */
export async function saveApastraBaseline(
  runDir: string,
  savedAs: string,
  /** How the run falls short of whole, when it was saved anyway (--force): kept in the baseline. */
  incomplete?: string,
): Promise<{ path: string; archived?: string; thresholdsFailed: string[] } | undefined> {
  const manifest = readManifest(runDir);
  const native = apastraNative.maybe(manifest.suite.native);
  if (!native) return undefined;
  const { scorecard } = await scorecardOfAssayRun(runDir);
  const metrics = scorecard.get('normalized_metrics') as Map<string, PyValue>;
  const thresholdsFailed = Object.entries(native.thresholds)
    .filter(
      ([m, t]) =>
        m !== 'pass_rate' &&
        !(
          (metrics.get(m) as PyFloat | undefined)?.value !== undefined &&
          (metrics.get(m) as PyFloat).value >= t
        ),
    )
    .map(([m]) => m);
  const { baseline } = gatePaths(native);
  mkdirSync(join(baseline, '..'), { recursive: true });
  let archived: string | undefined;
  if (existsSync(baseline)) {
    const stamp = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    // Copied, not moved: the previous baseline stays active until the new one replaces it whole
    // (a kill in between leaves it, never no baseline, which a gate would take for none to meet).
    // Copied to a new file only: never over one that stands there (an archive of the same second,
    // a file or a link of someone else's, whose target the copy would overwrite), but beside it (-2, -3…).
    for (let i = 1; archived === undefined; i++) {
      const name = baseline.replace(/\.json$/, `-${stamp}${i === 1 ? '' : `-${i}`}.json`);
      try {
        copyFileSync(baseline, name, constants.COPYFILE_EXCL);
        archived = name;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 1000) throw err;
      }
    }
  }
  const doc = new Map<string, PyValue>([
    ['suite_id', native.suiteId],
    ['established_at', new Date().toISOString()],
    ['source_run', manifest.runId],
    ['assay_baseline', savedAs],
    ['scorecard_digest', documentDigest(scorecard)],
    ['scorecard', scorecard],
    // A gate against it never passes (judge.ts): its metrics cover only the cases it reached.
    ...(incomplete ? ([['assay_incomplete', incomplete]] as [string, PyValue][]) : []),
  ]);
  writeFileWhole(baseline, pyJsonDumps(doc, { indent: 2, ensureAscii: false }));
  return { path: baseline, archived, thresholdsFailed };
}

/** The apastra format's `baseline` hook: its refusal of a run that is not complete, its active baseline. */
export const baselineHook: BaselineHook = {
  refusal: async (runDir) => apastraBaselineRefusal(runDir),
  async save(runDir, savedAs, incomplete) {
    const saved = await saveApastraBaseline(runDir, savedAs, incomplete);
    if (!saved) return undefined;
    return {
      lines: [
        ...(saved.archived ? [`Archived the previous apastra baseline: ${saved.archived}`] : []),
        `Saved apastra baseline: ${saved.path}`,
      ],
      warnings:
        saved.thresholdsFailed.length > 0
          ? [
              `this run fails its thresholds (${saved.thresholdsFailed.join(', ')}); apastra's baseline skill baselines only passing runs`,
            ]
          : [],
    };
  },
};

/** The apastra format's `policyCompare` hook: compare.py's regression policy over two sides. */
export const policyCompareHook: PolicyCompareHook = {
  async read(policyFile, baselinePath, candidatePath) {
    const policy = readPolicy(policyFile);
    const [baseline, candidate] = await Promise.all([readSide(baselinePath), readSide(candidatePath)]);
    return {
      baseline,
      candidate,
      judge(incomplete) {
        const outcome = policyOutcome(baseline, candidate, policy);
        if (incomplete) demotePartial(outcome, incomplete);
        // apastra's CI gate: pass passes; warning and fail both fail.
        return {
          pass: outcome.status === 'pass',
          text: renderRegression(outcome),
          report: (extra) => reportText(outcome.report, extra),
        };
      },
    };
  },
};
