// What a script assertion's return value means (spec §5.3, promptfoo's javascript.ts and
// scriptResultNormalization.ts): booleans, numbers and GradingResult objects, with the
// JavaScript and Python rules kept apart because promptfoo keeps them apart.
import type { ScoreResult } from '../types.js';

/** A script's verdict: a ScoreResult plus the extras a GradingResult may carry. */
export interface ScriptScoreResult extends ScoreResult {
  /** Named scores the script reported; they flow into the test's named metrics. */
  namedScores?: Record<string, number>;
  /** The script's component results, kept as returned. */
  componentResults?: unknown[];
}

/** How an assertion asks for its result to be read. */
export interface NormalizeOptions {
  threshold?: number;
  negate: boolean;
  /** Appended to a failure reason on its own line (promptfoo shows the code that failed). */
  suffix?: string;
}

/** A return value that is not a verdict; the assertion fails with this message. */
export class ScriptResultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptResultError';
  }
}

interface GradingResult {
  pass: boolean;
  score: number;
  reason: string;
  namedScores?: unknown;
  componentResults?: unknown[];
}

type Labels = { code: string; language: string };
const JS: Labels = { code: 'Custom function', language: 'JavaScript' };
const PYTHON: Labels = { code: 'Python code', language: 'Python' };
/** Ruby results follow Python's rules with Ruby's names (promptfoo's normalizeScriptResult). */
export const RUBY: Labels = { code: 'Ruby code', language: 'Ruby' };

/**
 * promptfoo's isGradingResult: `pass` boolean, `score` number, `reason` string, optional extras of
 * the right shape. The score must also be finite: NaN would poison the case's weighted mean.
 */
function isGradingResult(value: unknown): value is GradingResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.pass === 'boolean' &&
    typeof r.score === 'number' &&
    Number.isFinite(r.score) &&
    typeof r.reason === 'string' &&
    (r.namedScores === undefined || typeof r.namedScores === 'object') &&
    (r.tokensUsed === undefined || typeof r.tokensUsed === 'object') &&
    (r.componentResults === undefined || Array.isArray(r.componentResults)) &&
    (r.assertion === undefined || r.assertion === null || typeof r.assertion === 'object') &&
    (r.comment === undefined || typeof r.comment === 'string')
  );
}

function withSuffix(reason: string, suffix: string | undefined): string {
  return suffix ? `${reason}\n${suffix}` : reason;
}

function fromBoolean(result: boolean, opts: NormalizeOptions, labels: Labels): ScriptScoreResult {
  const pass = result !== opts.negate;
  return {
    pass,
    score: pass ? 1 : 0,
    reason: pass ? 'Assertion passed' : withSuffix(`${labels.code} returned ${result}`, opts.suffix),
  };
}

function fromNumber(result: number, opts: NormalizeOptions, labels: Labels): ScriptScoreResult {
  if (!Number.isFinite(result)) {
    throw new ScriptResultError(`${labels.code} returned a non-finite number (${result})`);
  }
  const rawPass = opts.threshold === undefined ? result > 0 : result >= opts.threshold;
  const pass = rawPass !== opts.negate;
  // The score is the script's number even when negated: promptfoo never inverts it.
  return {
    pass,
    score: result,
    reason: pass ? 'Assertion passed' : withSuffix(`${labels.code} returned ${rawPass}`, opts.suffix),
  };
}

/** Named scores that are numbers; anything else in the map is dropped rather than trusted. */
function numericScores(value: unknown): Record<string, number> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, number> = {};
  let any = false;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'number' && Number.isFinite(v)) {
      out[k] = v;
      any = true;
    }
  }
  return any ? out : undefined;
}

/** The fields of a GradingResult that assay reads itself; any others are kept as `scriptFields`. */
const OWN_FIELDS = new Set(['pass', 'score', 'reason', 'namedScores', 'componentResults', 'assertion']);

function fromGradingResult(result: GradingResult, opts: NormalizeOptions, labels: Labels): ScriptScoreResult {
  const pass = result.pass !== opts.negate;
  const out: ScriptScoreResult = {
    pass,
    score: result.score,
    reason:
      pass === result.pass
        ? result.reason
        : pass
          ? 'Assertion passed'
          : `${labels.code} returned ${result.pass}`,
  };
  const named = numericScores(result.namedScores);
  if (named) out.namedScores = named;
  const details: Record<string, unknown> = {};
  if (result.componentResults) {
    out.componentResults = result.componentResults;
    // Kept on the verdict as returned: promptfoo's JSON writes them under the script's result and
    // then, flattened, after it.
    const kept = asJson(result.componentResults);
    if (Array.isArray(kept)) details.componentResults = kept;
  }
  // Whatever else the script returned (`metadata`, fields of its own): promptfoo keeps the whole
  // object as the assertion's result, and its JSON shows them.
  const extra = asJson(Object.fromEntries(Object.entries(result).filter(([k]) => !OWN_FIELDS.has(k))));
  if (extra && typeof extra === 'object' && Object.keys(extra).length > 0) details.scriptFields = extra;
  if (Object.keys(details).length > 0) out.details = details;
  return out;
}

/**
 * A script's value as the run log can keep it (a JSON round trip, as promptfoo's own writer makes),
 * or undefined when it cannot be written (a circular structure, a BigInt).
 */
function asJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Reads a JavaScript assertion's result: boolean, number (threshold if set, else `> 0`) or a
 * GradingResult, whose threshold is ignored. Throws ScriptResultError for anything else.
 */
export function normalizeJavascriptResult(result: unknown, opts: NormalizeOptions): ScriptScoreResult {
  if (typeof result === 'boolean') return fromBoolean(result, opts, JS);
  if (typeof result === 'number') return fromNumber(result, opts, JS);
  if (isGradingResult(result)) return fromGradingResult(result, opts, JS);
  throw new ScriptResultError(
    `Custom function must return a boolean, number, or GradingResult object ({pass: boolean, score: number, reason: string}). Got type ${typeof result}: ${describe(result)}`,
  );
}

/** promptfoo's snake_case → camelCase mapping for Python results, component results included. */
function camelCaseKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...obj };
  const pairs: [string, string][] = [
    ['pass_', 'pass'],
    ['named_scores', 'namedScores'],
    ['named_score_weights', 'namedScoreWeights'],
    ['component_results', 'componentResults'],
    ['tokens_used', 'tokensUsed'],
  ];
  for (const [snake, camel] of pairs) {
    if (snake in result && !(camel in result)) result[camel] = result[snake];
  }
  if (Array.isArray(result.componentResults)) {
    result.componentResults = result.componentResults.map((c: unknown) =>
      typeof c === 'object' && c !== null && !Array.isArray(c)
        ? camelCaseKeys(c as Record<string, unknown>)
        : c,
    );
  }
  return result;
}

function fromPythonObject(obj: object, opts: NormalizeOptions, labels: Labels): ScriptScoreResult {
  const mapped = Array.isArray(obj) ? obj : camelCaseKeys(obj as Record<string, unknown>);
  if (!isGradingResult(mapped)) {
    throw new ScriptResultError(
      `${labels.language} assertion must return a boolean, number, or {pass, score, reason} object. Got instead:\n${JSON.stringify(mapped, null, 2)}`,
    );
  }
  const graded = { ...mapped };
  // Python (unlike JavaScript) applies the assertion's threshold to a returned object.
  if (opts.threshold !== undefined && graded.score < opts.threshold) {
    graded.pass = false;
    const message = `${labels.language} score ${graded.score} is less than threshold ${opts.threshold}`;
    graded.reason = graded.reason ? `${message}: ${graded.reason}` : message;
  }
  return fromGradingResult(graded, opts, labels);
}

/**
 * Reads a Python assertion's result (already decoded from JSON): booleans and `"true"`/`"false"`,
 * objects and strings starting `{` (snake_case keys mapped, threshold applied), and numbers or
 * numeric strings. Throws ScriptResultError for anything else.
 */
export function normalizePythonResult(
  result: unknown,
  opts: NormalizeOptions,
  labels: Labels = PYTHON,
): ScriptScoreResult {
  const lower = typeof result === 'string' ? result.toLowerCase() : undefined;
  if (result === true || lower === 'true') return fromBoolean(true, opts, labels);
  if (result === false || lower === 'false') return fromBoolean(false, opts, labels);
  if (typeof result === 'string' && result.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(result);
    } catch (err) {
      throw new ScriptResultError(`Invalid JSON: ${String(err)} when parsing result: ${result}`);
    }
    if (typeof parsed !== 'object' || parsed === null) {
      throw new ScriptResultError(
        `${labels.language} assertion must return a boolean, number, or {pass, score, reason} object. Got instead: ${result}`,
      );
    }
    return fromPythonObject(parsed, opts, labels);
  }
  if (typeof result === 'object' && result !== null) return fromPythonObject(result, opts, labels);
  // parseFloat, not Number: promptfoo accepts "0.5 points" as 0.5.
  const score = Number.parseFloat(String(result));
  if (Number.isNaN(score)) {
    const python = labels === PYTHON;
    const shown =
      result === null || result === undefined ? (python ? 'None' : String(result)) : String(result);
    const hint =
      python && shown === 'None'
        ? ' (a multi-line Python assertion must `return` its result explicitly)'
        : '';
    throw new ScriptResultError(
      `${labels.language} assertion must return a boolean, number, or {pass, score, reason} object. Instead got:\n${shown}${hint}`,
    );
  }
  return fromNumber(score, opts, labels);
}
