// apastra's inline assertions (`assert:` on a dataset or quick-eval case), judged exactly as its
// `evaluate_assertions.py` judges them: one 1.0/0.0 value per assertion under `assert_<type as
// written>`; a `not-` prefix inverts the result at the very end, also after an error or an unknown
// type; any exception inside a check means "not passed"; values are compared as Python `str()`.
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import {
  PyJsonAbort,
  PyJsonError,
  pyJsonLoads,
  pyJsonRawDecode,
  pyToJs,
} from '../../core/python/json-loads.js';
import { compilePyRegex, PyRegexError, PyRegexUnsupported } from '../../core/python/re.js';
import { SPACE } from '../../core/python/re-syntax.js';
import { pyLower, pyStrip } from '../../core/python/text.js';
import type { AssertionSpec } from '../../core/types.js';
import { is, view } from '../../core/view.js';
import { getScorer, registerScorer } from '../../scorers/registry.js';
import type { ScoreInput, ScoreResult, Scorer } from '../../scorers/types.js';

/** The base types `evaluate_assertions.py` knows (the schema's list). */
export const ASSERT_TYPES = [
  'equals',
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'regex',
  'starts-with',
  'is-json',
  'contains-json',
  'is-valid-json-schema',
  'similar',
  'llm-rubric',
  'factuality',
  'answer-relevance',
  'latency',
  'cost',
];

/** The types a judge decides (with a grader), or a substring fallback decides (apastra offline). */
export const JUDGED_TYPES = new Set(['llm-rubric', 'answer-relevance', 'similar', 'factuality']);

/** What the loader precomputes of an inline assertion (`AssertionSpec.options`). */
export interface InlineOptions {
  /** The type as written, `not-` included; '' for an invalid assertion (`assert_invalid`). */
  written: string;
  /** Python `str(value)`. */
  str: string;
  /** Python `str(item)` of each item, when the value is a list. */
  items?: string[];
  /** For `similar`: Python `str()` of the reference and the threshold, after a `{value, threshold}` value. */
  reference?: string;
  threshold?: unknown;
}

/** The checked view of an inline assertion's options, as the loader made them. */
export const inlineOptions = view<InlineOptions>("an apastra assertion's options", {
  written: is.string,
  str: is.string,
  items: is.optional(is.arrayOf(is.string)),
  reference: is.optional(is.string),
  threshold: is.any,
});

function opts(spec: AssertionSpec): InlineOptions {
  return inlineOptions.read(spec.options);
}

/** Python's `float(x)` for a parsed value; throws where Python raises. */
export function pyFloatOf(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = pyStrip(v).toLowerCase();
    if (/^[+-]?(inf|infinity)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(s)) return Number.NaN;
    const digits = '\\d(?:_?\\d)*';
    const re = new RegExp(`^[+-]?(?:${digits}(?:\\.(?:${digits})?)?|\\.${digits})(?:e[+-]?${digits})?$`);
    if (re.test(s)) return Number(s.replace(/_/g, ''));
    throw new Error(`could not convert string to float: '${v}'`);
  }
  throw new Error(
    `float() argument must be a string or a real number, not ${v === null ? 'NoneType' : typeof v}`,
  );
}

/** The fenced-block pattern of `extract_json_blocks` (DOTALL), with Python's `\s`. */
const fence = new RegExp(`\`\`\`(?:json)?[${SPACE}]*([\\s\\S]*?)[${SPACE}]*\`\`\``, 'gu');
function fencePattern(): RegExp {
  fence.lastIndex = 0;
  return fence;
}

/**
 * Python's `re.compile(pattern)` for `re.search`: the shared translator, which takes leading global
 * flag groups (`(?i)`, `(?sm)`, `(?a)`, `(?x)`) as `re` does.
 */
export function pyRegex(pattern: string): RegExp {
  return compilePyRegex(pattern);
}

/** `extract_json_blocks`: fenced blocks' inner text, then every `{`/`[` that `raw_decode` parses. */
export function jsonBlocks(text: string): string[] {
  const blocks: string[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(fencePattern())) {
    const candidate = pyStrip(m[1] ?? '');
    if (candidate && !seen.has(candidate)) {
      blocks.push(candidate);
      seen.add(candidate);
    }
  }
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    let end: number;
    try {
      end = pyJsonRawDecode(text.slice(i)).end;
    } catch (err) {
      // raw_decode raises ValueError (JSONDecodeError, or an int too long) — skipped; anything
      // else (RecursionError) escapes to the assertion, which then fails.
      if (err instanceof PyJsonError || (err instanceof PyJsonAbort && err.pyType === 'ValueError')) continue;
      throw err;
    }
    const candidate = text.slice(i, i + end);
    if (!seen.has(candidate)) {
      blocks.push(candidate);
      seen.add(candidate);
    }
  }
  return blocks;
}

/** `json.loads` succeeds (ValueError is the only failure caught; others escape as errors). */
function loads(text: string): unknown {
  try {
    return pyToJs(pyJsonLoads(text));
  } catch (err) {
    if (err instanceof PyJsonError || (err instanceof PyJsonAbort && err.pyType === 'ValueError'))
      throw new NotJson();
    throw err;
  }
}

class NotJson extends Error {}
class SchemaInvalid extends Error {}

const schemaCache = new Map<string, ValidateFunction | SchemaInvalid>();

/** A jsonschema validator for `schema`: the draft its `$schema` names, else the latest (2020-12). */
function schemaValidator(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema) ?? 'undefined';
  let fn = schemaCache.get(key);
  if (!fn) {
    try {
      if (typeof schema !== 'object' && typeof schema !== 'boolean') throw new Error('not a schema');
      if (schema === null || Array.isArray(schema)) throw new Error('not a schema');
      const require = createRequire(import.meta.url);
      type AjvClass = new (
        o: object,
      ) => {
        compile(s: unknown): ValidateFunction;
        addMetaSchema(s: object): unknown;
      };
      const draft =
        typeof schema === 'object' ? String((schema as Record<string, unknown>).$schema ?? '') : '';
      const options = { strict: false, logger: false, validateFormats: false, validateSchema: true };
      // jsonschema's validator_for: the draft `$schema` names, else (absent or unknown) the latest.
      let compiled: unknown = schema;
      let ajv: InstanceType<AjvClass>;
      if (/json-schema\.org\/draft-04\/schema/.test(draft)) {
        // draft-04 (exclusiveMaximum as a boolean, `id`): ajv's own draft-04 class, loaded only here.
        const Ajv04 = require('ajv-draft-04') as AjvClass;
        ajv = new Ajv04(options);
      } else if (/json-schema\.org\/draft-0[67]\/schema/.test(draft)) {
        const { Ajv } = require('ajv') as { Ajv: AjvClass };
        ajv = new Ajv(options);
        if (draft.includes('draft-06')) ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
      } else if (/json-schema\.org\/draft\/2019-09\/schema/.test(draft)) {
        const { Ajv2019 } = require('ajv/dist/2019') as { Ajv2019: AjvClass };
        ajv = new Ajv2019(options);
      } else {
        const { Ajv2020 } = require('ajv/dist/2020') as { Ajv2020: AjvClass };
        ajv = new Ajv2020(options);
        if (
          draft &&
          !/json-schema\.org\/(draft\/2020-12\/)?schema#?$/.test(draft) &&
          !/draft-0[34]/.test(draft)
        ) {
          // An unknown meta-schema: jsonschema validates with its latest draft.
          const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
          compiled = rest;
        }
      }
      fn = ajv.compile(compiled);
    } catch (err) {
      fn = new SchemaInvalid((err as Error).message);
    }
    if (schemaCache.size > 256) schemaCache.clear();
    schemaCache.set(key, fn);
  }
  if (fn instanceof SchemaInvalid) throw fn;
  return fn;
}

/** The base check of one assertion, before inversion; throws where the Python would raise. */
async function check(base: string, spec: AssertionSpec, input: ScoreInput): Promise<boolean> {
  const output = input.output;
  const value = spec.value;
  const o = opts(spec);
  switch (base) {
    case 'equals':
      return typeof value === 'string' && output === value;
    case 'contains':
      return output.includes(o.str);
    case 'icontains':
      return pyLower(output).includes(pyLower(o.str));
    case 'contains-any':
      return o.items ? o.items.some((s) => output.includes(s)) : output.includes(o.str);
    case 'contains-all':
      return o.items ? o.items.every((s) => output.includes(s)) : output.includes(o.str);
    case 'regex':
      if (typeof value !== 'string') throw new Error('first argument must be string or compiled pattern');
      return pyRegex(value).test(output);
    case 'starts-with':
      if (typeof value !== 'string') throw new Error('startswith first arg must be str');
      return output.startsWith(value);
    case 'is-json':
      try {
        loads(output);
        return true;
      } catch (err) {
        if (err instanceof NotJson) return false;
        throw err;
      }
    case 'contains-json':
      for (const block of jsonBlocks(output)) {
        try {
          loads(block);
          return true;
        } catch (err) {
          if (!(err instanceof NotJson)) throw err;
        }
      }
      return false;
    case 'is-valid-json-schema': {
      const validate = (text: string): boolean => {
        const parsed = loads(text);
        return schemaValidator(value)(parsed) === true;
      };
      try {
        if (validate(output)) return true;
      } catch (err) {
        if (!(err instanceof NotJson)) throw err;
      }
      for (const block of jsonBlocks(output)) {
        try {
          if (validate(block)) return true;
        } catch (err) {
          if (!(err instanceof NotJson)) throw err;
        }
      }
      return false;
    }
    case 'latency':
      return pyFloatOf(input.response.latencyMs ?? 0) <= pyFloatOf(value);
    case 'cost':
      return pyFloatOf(input.response.cost ?? 0) <= pyFloatOf(value);
    case 'llm-rubric':
    case 'answer-relevance':
    case 'similar':
    case 'factuality':
      return input.grader ? judged(base, spec, input) : fallback(base, spec, input);
    default:
      return false;
  }
}

/** apastra's judge-less fallbacks: substring tests of the rubric or reference. */
function fallback(base: string, spec: AssertionSpec, input: ScoreInput): boolean {
  const o = opts(spec);
  const out = pyLower(input.output);
  if (base === 'similar') return out.includes(pyLower(o.reference ?? o.str));
  const value = spec.value;
  if (base === 'factuality') {
    if (o.items) return o.items.every((s) => out.includes(pyLower(s)));
    return out.includes(pyLower(o.str));
  }
  // llm-rubric, answer-relevance: an empty or missing value (Python falsy) passes.
  const falsy =
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
  if (falsy) return true;
  if (o.items) return o.items.every((s) => out.includes(pyLower(s)));
  return out.includes(pyLower(o.str));
}

/** The judge: assay's `llm-rubric` grader, asked the question the assertion type stands for. */
async function judged(base: string, spec: AssertionSpec, input: ScoreInput): Promise<boolean> {
  const o = opts(spec);
  const rubricScorer = getScorer('llm-rubric');
  if (!rubricScorer) throw new Error('llm-rubric scorer is not registered');
  const rubric =
    base === 'llm-rubric'
      ? o.str
      : base === 'answer-relevance'
        ? `The output is a relevant answer to this question or request: ${o.str}`
        : base === 'factuality'
          ? `The output is factually consistent with this reference and contradicts none of it: ${o.str}`
          : `The output means the same as this reference text (score how similar it is, 0 to 1): ${o.reference ?? o.str}`;
  const verdict = await rubricScorer.score({
    ...input,
    value: rubric,
    spec: { type: 'llm-rubric', value: rubric, literal: true },
  });
  if (base !== 'similar') return verdict.pass;
  try {
    return verdict.score >= pyFloatOf(o.threshold === undefined ? 0.8 : o.threshold);
  } catch {
    // float(threshold) raised (None, "high"): evaluate_assertions.py falls back to bool(score).
    return verdict.score !== 0;
  }
}

async function score(input: ScoreInput): Promise<ScoreResult> {
  const o = opts(input.spec);
  if (!o.written)
    return {
      pass: false,
      score: 0,
      reason: 'invalid assertion (not an object, or no string type): assert_invalid 0.0',
    };
  const negated = o.written.startsWith('not-');
  const base = negated ? o.written.slice(4) : o.written;
  let passed = false;
  let note = '';
  try {
    passed = await check(base, input.spec, input);
    if (!ASSERT_TYPES.includes(base)) note = ` (unknown type "${base}" fails, as in apastra)`;
  } catch (err) {
    // A grader that cannot answer is an error of the run, not a verdict on the model.
    if ((err as Error).name === 'GraderError') throw err;
    if (err instanceof PyRegexUnsupported) throw err;
    passed = false;
    note = ` (${err instanceof PyRegexError ? 'invalid pattern' : 'error'}: ${(err as Error).message}; counts as not passed)`;
  }
  if (negated) passed = !passed;
  return {
    pass: passed,
    score: passed ? 1 : 0,
    reason: `${o.written}: ${passed ? 'passed' : 'failed'}${note}`,
  };
}

function validate(spec: AssertionSpec): string | undefined {
  const o = inlineOptions.maybe(spec.options);
  if (!o) return 'apastra assertion without its options';
  const base = o.written.replace(/^not-/, '');
  if (base === 'regex' && typeof spec.value === 'string') {
    try {
      pyRegex(spec.value);
    } catch (err) {
      if (err instanceof PyRegexUnsupported) return `regex ${JSON.stringify(spec.value)}: ${err.message}`;
    }
  }
  return undefined;
}

function lint(spec: AssertionSpec): string | undefined {
  const o = inlineOptions.maybe(spec.options);
  if (!o) return undefined;
  const base = o.written.replace(/^not-/, '');
  if (base === 'regex' && typeof spec.value === 'string') {
    try {
      pyRegex(spec.value);
    } catch (err) {
      if (err instanceof PyRegexError)
        return `regex ${JSON.stringify(spec.value)} is not a valid Python pattern (${err.message}): apastra counts it as not passed`;
    }
  }
  if (o.written && !ASSERT_TYPES.includes(base))
    return `unknown assertion type "${o.written}": apastra scores it ${o.written.startsWith('not-') ? 'as passed (the not- inverts its failure)' : 'as failed'}`;
  return undefined;
}

/** Deterministic inline assertions (a judged type here has no grader: apastra's offline fallback). */
export const apastraAssertScorer: Scorer = {
  type: 'apastra:assert',
  description:
    "apastra's inline assertion, judged as evaluate_assertions.py does (1.0/0.0, not- inverts last)",
  validate,
  lint,
  score,
};

/** Judged inline assertions in compat mode: the grader when one is given, else apastra's offline fallback. */
export const apastraJudgedOrFallbackScorer: Scorer = {
  type: 'apastra:judged-or-fallback',
  description: "apastra's judged assertion: assay's grader when given, else apastra's substring fallback",
  validate,
  usesGrader: true,
  score,
};

/** Judged inline assertions without a fallback: a grader is required (refused up front without one). */
export const apastraJudgedScorer: Scorer = {
  type: 'apastra:judged',
  description: "apastra's llm-rubric / similar / factuality / answer-relevance, decided by assay's grader",
  validate,
  graded: true,
  score,
};

registerScorer(apastraAssertScorer);
registerScorer(apastraJudgedScorer);
registerScorer(apastraJudgedOrFallbackScorer);
